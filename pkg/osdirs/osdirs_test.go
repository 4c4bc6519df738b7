package osdirs

import "testing"

func TestDataHome(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"linux", nil, "/home/ann", "/home/ann/.local/share/mcode"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, "/home/ann", "/data/mcode"},
		{"linux", map[string]string{"XDG_DATA_HOME": "rel/data"}, "/home/ann", "rel/data/mcode"},
		{"linux", map[string]string{"MCODE_HOME": "/srv/mcode", "XDG_DATA_HOME": "/data"}, "/home/ann", "/srv/mcode"},
		{"freebsd", nil, "/home/ann", "/home/ann/.local/share/mcode"},
		{"darwin", nil, "/Users/ann", "/Users/ann/Library/Application Support/mcode"},
		{"darwin", map[string]string{"XDG_DATA_HOME": "/Users/ann/.local/share"}, "/Users/ann", "/Users/ann/.local/share/mcode"},
		{"darwin", map[string]string{"MCODE_HOME": "state"}, "/Users/ann", "state"},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\Ann\AppData\Local`}, `C:\Users\Ann`, `C:\Users\Ann\AppData\Local\mcode`},
		{"windows", map[string]string{"LOCALAPPDATA": `D:\Local\`, "XDG_DATA_HOME": "/c/data"}, `C:\Users\Ann`, `D:\Local\mcode`},
		{"windows", nil, `C:\Users\Ann`, `C:\Users\Ann\AppData\Local\mcode`},
		{"windows", map[string]string{"MCODE_HOME": `\\srv\share\mcode`}, `C:\Users\Ann`, `\\srv\share\mcode`},
	}
	for _, tt := range tests {
		got := DataHome(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
		if got != tt.want {
			t.Errorf("DataHome(%s, %v, %s) = %q, want %q", tt.goos, tt.env, tt.home, got, tt.want)
		}
	}
}
