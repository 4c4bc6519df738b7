package datetime

import (
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
