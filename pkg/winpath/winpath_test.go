package winpath

import "testing"

func TestNormalAndVolume(t *testing.T) {
	tests := []struct{ in, normal, volume string }{
		{`C:\Users\ann`, `C:\Users\ann`, "C:"},
		{`c:/Users/ann`, `c:\Users\ann`, "C:"},
		{`\\?\C:\very\long`, `C:\very\long`, "C:"},
		{`\\?\UNC\srv\share\dir`, `\\srv\share\dir`, `\\srv\share`},
		{`\\?\unc\srv\share`, `\\srv\share`, `\\srv\share`},
		{`\\.\D:\x`, `D:\x`, "D:"},
		{`\\srv\share\a\b`, `\\srv\share\a\b`, `\\srv\share`},
		{`//srv/share/a`, `\\srv\share\a`, `\\srv\share`},
		{`\\srv`, `\\srv`, ""},
		{`relative\path`, `relative\path`, ""},
		{`C:relative`, `C:relative`, "C:"},
	}
	for _, tt := range tests {
		if got := Normal(tt.in); got != tt.normal {
			t.Errorf("Normal(%q) = %q, want %q", tt.in, got, tt.normal)
		}
		if got := Volume(tt.in); got != tt.volume {
			t.Errorf("Volume(%q) = %q, want %q", tt.in, got, tt.volume)
		}
	}
}

func TestAbsRootClean(t *testing.T) {
	tests := []struct {
		in        string
		abs, root bool
		clean     string
	}{
		{`C:\`, true, true, `C:\`},
		{`C:`, false, false, `C:`},
		{`c:\.\windows\..\`, true, true, `C:\`},
		{`C:\Users\\ann\.\x\..\`, true, false, `C:\Users\ann`},
		{`\\srv\share`, true, true, `\\srv\share\`},
		{`\\srv\share\`, true, true, `\\srv\share\`},
		{`\\?\UNC\srv\share\dir\..`, true, true, `\\srv\share\`},
		{`\\?\D:\`, true, true, `D:\`},
		{`\Windows`, false, false, `\Windows`},
		{`a\..\..\b`, false, false, `\b`},
	}
	for _, tt := range tests {
		if got := IsAbs(tt.in); got != tt.abs {
			t.Errorf("IsAbs(%q) = %v", tt.in, got)
		}
		if got := IsRoot(tt.in); got != tt.root {
			t.Errorf("IsRoot(%q) = %v", tt.in, got)
		}
		if tt.abs {
			if got := Clean(tt.in); got != tt.clean {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.clean)
			}
		}
	}
}

func TestWithinAndEqual(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{`C:\Users\Ann\src`, `c:\users\ann`, true},
		{`C:\Users\Ann`, `C:\Users\Ann\`, true},
		{`C:\Users\Annex`, `C:\Users\Ann`, false},
		{`\\?\C:\Users\Ann\x`, `C:\Users\Ann`, true},
		{`C:\x`, `C:\`, true},
		{`D:\x`, `C:\`, false},
		{`\\srv\share\a`, `\\SRV\Share`, true},
		{`\\srv\share2\a`, `\\srv\share`, false},
	}
	for _, tt := range tests {
		if got := Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v", tt.p, tt.dir, got)
		}
	}
	if !Equal(`\\?\C:\Users\ANN\`, `c:/users/ann`) || Equal(`C:\a`, `C:\b`) {
		t.Error("Equal")
	}
}

func TestLong(t *testing.T) {
	long := `C:\` + repeat(`abcdefghij\`, 30) + "file.txt"
	if got := Long(long); got != `\\?\`+long {
		t.Errorf("Long(a long drive path) = %q", got)
	}
	unc := `\\srv\share\` + repeat(`abcdefghij\`, 30) + "f"
	if got := Long(unc); got != `\\?\UNC\srv\share\`+repeat(`abcdefghij\`, 30)+"f" {
		t.Errorf("Long(a long UNC path) = %q", got)
	}
	for _, p := range []string{`C:\short`, repeat(`rel\`, 100), `\\?\` + long} {
		if got := Long(p); got != p {
			t.Errorf("Long(%q) = %q, want it unchanged", p, got)
		}
	}
}

func TestRecycleBin(t *testing.T) {
	const sid = "S-1-5-21-1-2-3-1001"
	for p, want := range map[string]string{
		`C:\Users\ann\x.txt`: `C:\$Recycle.Bin\` + sid,
		`\\?\d:\data\x`:      `D:\$Recycle.Bin\` + sid,
		`\\srv\share\x`:      "",
		`relative\x`:         "",
	} {
		if got := RecycleBin(p, sid); got != want {
			t.Errorf("RecycleBin(%q) = %q, want %q", p, got, want)
		}
	}
	if !IsUNC(`\\?\UNC\srv\share\x`) || IsUNC(`C:\x`) {
		t.Error("IsUNC")
	}
	for p, want := range map[string]bool{
		`C:\$Recycle.Bin\S-1\$RAB12CD.txt`: true, `c:\$recycle.bin\S-1`: true,
		`C:\$Recycle.Binder\x`: false, `C:\Users\$Recycle.Bin\x`: false,
	} {
		if got := InRecycleBin(p); got != want {
			t.Errorf("InRecycleBin(%q) = %v", p, got)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
