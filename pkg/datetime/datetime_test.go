package datetime

import (
	"archive/zip"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/tool"
)

func TestNow(t *testing.T) {
	at := time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC)
	r, err := Now(at, Params{TZ: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{ISO: "2026-11-30T08:30:00+09:00", Date: "2026-11-30", Time: "08:30:00", Weekday: "Monday",
		Timezone: "Asia/Tokyo", UTCOffset: "+09:00", Unix: at.Unix()}
	if *r != want {
		t.Errorf("got %+v\nwant %+v", *r, want)
	}
	for _, bad := range []string{"Mars/Olympus", "../../etc/passwd", "utc+3"} {
		_, err := Now(at, Params{TZ: bad})
		if te := tool.AsError(err); te == nil || te.Code != tool.CodeInvalidArgs {
			t.Errorf("%q: got %v, want invalid_args", bad, err)
		}
	}
}

// Zone names match whatever their case, as long as one name matches.
func TestZoneNamesIgnoreCase(t *testing.T) {
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"utc": "UTC", "UTC": "UTC", "europe/paris": "Europe/Paris", "AMERICA/NEW_YORK": "America/New_York",
		"america/port-au-prince": "America/Port-au-Prince", "antarctica/mcmurdo": "Antarctica/McMurdo",
	} {
		r, err := Now(at, Params{TZ: in})
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if r.Timezone != want || r.Note != "" {
			t.Errorf("%q: timezone %q note %q, want %q", in, r.Timezone, r.Note, want)
		}
	}
}

// A TZ that names no zone falls back to UTC and says so; a good one,
// in any case, is used.
func TestBadTZFallsBackToUTC(t *testing.T) {
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for tz, want := range map[string]struct {
		zone, offset string
		note         bool
	}{
		"bogus":         {"UTC", "+00:00", true},
		"Mars/Olympus":  {"UTC", "+00:00", true},
		"":              {"UTC", "+00:00", false},
		"Asia/Tokyo":    {"Asia/Tokyo", "+09:00", false},
		":Asia/Tokyo":   {"Asia/Tokyo", "+09:00", false},
		"europe/berlin": {"Europe/Berlin", "+02:00", false},
	} {
		t.Setenv("TZ", tz)
		r, err := Now(at, Params{})
		if err != nil {
			t.Fatalf("TZ=%q: %v", tz, err)
		}
		if r.Timezone != want.zone || r.UTCOffset != want.offset || (r.Note != "") != want.note {
			t.Errorf("TZ=%q: got zone %q offset %q note %q, want %+v", tz, r.Timezone, r.UTCOffset, r.Note, want)
		}
		if want.note && !strings.Contains(r.Note, strconv.Quote(tz)) {
			t.Errorf("TZ=%q: the note does not name it: %q", tz, r.Note)
		}
	}
}

// zones.txt is Go's own zone database's list of names, so no name is
// missing or made up, and no two differ only in case.
func TestZoneListMatchesGo(t *testing.T) {
	zr, err := zip.OpenReader(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Skipf("Go's zoneinfo.zip: %v", err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	if got := strings.Join(names, "\n") + "\n"; got != zoneList {
		t.Fatalf("zones.txt is out of date; regenerate it from %s", zr.File[0].Name)
	}
	seen := map[string]string{}
	for _, n := range names {
		if other, dup := seen[strings.ToLower(n)]; dup {
			t.Errorf("%q and %q differ only in case", n, other)
		}
		seen[strings.ToLower(n)] = n
		if _, err := time.LoadLocation(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
}
