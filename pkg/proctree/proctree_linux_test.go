package proctree

import "testing"

func TestParseStat(t *testing.T) {
	line := "4242 (my (odd) cmd) S 17 4242 4200 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	p, ok := ParseStat([]byte(line))
	want := Proc{PID: 4242, PPID: 17, SID: 4200, State: 'S', Start: 987654, Comm: "my (odd) cmd"}
	if !ok || p != want {
		t.Errorf("ParseStat = %+v %v, want %+v", p, ok, want)
	}
	for _, bad := range []string{"", "12 (x", "x (y) S 1", "12 (x) S a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if _, ok := ParseStat([]byte(bad)); ok {
			t.Errorf("ParseStat(%q) accepted", bad)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 3 4 5"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseStat(data) // must not panic
	})
}
