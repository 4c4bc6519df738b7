// Package datetime is the datetime tool: the current date and time in any
// IANA time zone.
package datetime

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata" // zones work on machines without /usr/share/zoneinfo

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "datetime"

// Timeout is datetime's default time limit: it reads a clock and a zone.
const Timeout = 5 * time.Second

// Params are the tool's parameters.
type Params struct {
	TZ string `json:"tz,omitempty"`
}

// Result is the structured answer.
type Result struct {
	ISO       string `json:"iso"`
	Date      string `json:"date"`
	Time      string `json:"time"`
	Weekday   string `json:"weekday"`
	Timezone  string `json:"timezone"`
	UTCOffset string `json:"utc_offset"`
	Unix      int64  `json:"unix"`
	// Note says when the zone is not the one asked for: a TZ the system
	// does not know falls back to UTC.
	Note string `json:"note,omitempty"`
}

var (
	//go:embed datetime.md
	description string
	//go:embed datetime.schema.json
	schema string
	// zones.txt lists the IANA names of Go's time zone database
	// (TestZoneListMatchesGo keeps it in step), for matching a name
	// whatever its case.
	//go:embed zones.txt
	zoneList string
)

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Parallel, Timeout: Timeout,
		Facts:       tool.Facts{ReadOnly: true},
		Description: description, Schema: schema,
	}, func(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
		res, err := Now(env.Now(), p)
		if err != nil {
			return nil, err
		}
		out := fmt.Sprintf("%s (%s, %s)", res.ISO, res.Weekday, res.Timezone)
		if res.Note != "" {
			out += "\nnote: " + res.Note
		}
		return &tool.Response{Output: out, Result: res}, nil
	})
}

// loadZone loads the zone name names: its exact IANA name, else the one
// name that matches it ignoring case (utc, europe/paris).
func loadZone(name string) (*time.Location, error) {
	loc, err := time.LoadLocation(name)
	if err == nil {
		return loc, nil
	}
	if canon, ok := zoneByFold(name); ok {
		return time.LoadLocation(canon)
	}
	return nil, err
}

// zoneByFold is the IANA name equal to name ignoring case. The database
// has no two names that differ only in case (a test checks), so a match
// is never ambiguous.
func zoneByFold(name string) (string, bool) {
	for _, z := range strings.Split(zoneList, "\n") {
		if z != "" && strings.EqualFold(z, name) {
			return z, true
		}
	}
	return "", false
}

// localZone is the machine's zone and its name: $TZ when it names a
// zone, else /etc/localtime. A TZ that names no zone makes Go use UTC
// quietly; here it is UTC said out loud, in the note.
func localZone() (loc *time.Location, name, note string) {
	tz, set := os.LookupEnv("TZ")
	tz = strings.TrimPrefix(tz, ":")
	switch {
	case !set:
		return time.Local, zoneName(time.Local), ""
	case tz == "":
		return time.UTC, "UTC", ""
	}
	if l, err := loadZone(tz); err == nil {
		if l.String() == tz || filepath.IsAbs(tz) {
			return l, tz, ""
		}
		return l, l.String(), ""
	}
	return time.UTC, "UTC", fmt.Sprintf("TZ=%q is not a time zone this system knows, so the time is given in UTC (set TZ to an IANA name such as Europe/Paris, or pass tz)", tz)
}

// zoneName names the local zone by its IANA name where the system says it
// ($TZ, or the /etc/localtime link), since time.Local calls itself "Local".
func zoneName(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	return loc.String()
}

// Now renders t in the zone p names (the local zone when empty).
func Now(t time.Time, p Params) (*Result, error) {
	loc, name, note := localZone()
	if p.TZ != "" {
		l, err := loadZone(p.TZ)
		if err != nil {
			return nil, &tool.Error{
				Code:    tool.CodeInvalidArgs,
				Message: fmt.Sprintf("unknown time zone %q", p.TZ),
				Hint:    "use an IANA zone name such as UTC, Europe/Paris or America/New_York",
			}
		}
		loc, name, note = l, l.String(), ""
	}
	t = t.In(loc)
	return &Result{
		ISO:       t.Format(time.RFC3339),
		Date:      t.Format(time.DateOnly),
		Time:      t.Format(time.TimeOnly),
		Weekday:   t.Weekday().String(),
		Timezone:  name,
		UTCOffset: t.Format("-07:00"),
		Unix:      t.Unix(),
		Note:      note,
	}, nil
}
