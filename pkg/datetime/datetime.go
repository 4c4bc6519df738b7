// Package datetime is the datetime tool: the current date and time in any
// IANA time zone.
package datetime

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // zones work on machines without /usr/share/zoneinfo

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Name is the tool's name.
const Name = "datetime"

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
}

var (
	//go:embed description.md
	description string
	//go:embed schema.json
	schema string
)

// Tool is the registry entry.
func Tool() *tool.Tool {
	return tool.New(tool.Spec{
		Name: Name, Mode: tool.Parallel,
		Facts:       tool.Facts{ReadOnly: true},
		Description: description, Schema: schema,
	}, func(ctx context.Context, env *tool.Env, p Params) (*tool.Response, error) {
		res, err := Now(env.Now(), p)
		if err != nil {
			return nil, err
		}
		return &tool.Response{
			Output: fmt.Sprintf("%s (%s, %s)", res.ISO, res.Weekday, res.Timezone),
			Result: res,
		}, nil
	})
}

// zoneName names the local zone by its IANA name where the system says it
// ($TZ, or the /etc/localtime link), since time.Local calls itself "Local".
func zoneName(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		return tz
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
	loc := time.Local
	if p.TZ != "" {
		l, err := time.LoadLocation(p.TZ)
		if err != nil {
			return nil, &tool.Error{
				Code:    tool.CodeInvalidArgs,
				Message: fmt.Sprintf("unknown time zone %q", p.TZ),
				Hint:    "use an IANA zone name such as UTC, Europe/Paris or America/New_York",
			}
		}
		loc = l
	}
	t = t.In(loc)
	return &Result{
		ISO:       t.Format(time.RFC3339),
		Date:      t.Format(time.DateOnly),
		Time:      t.Format(time.TimeOnly),
		Weekday:   t.Weekday().String(),
		Timezone:  zoneName(loc),
		UTCOffset: t.Format("-07:00"),
		Unix:      t.Unix(),
	}, nil
}
