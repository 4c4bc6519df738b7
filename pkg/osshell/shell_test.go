package osshell

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeSystem is a machine described by the files it has and what PATH
// finds.
func fakeSystem(goos string, onPath map[string]string, files []string, env map[string]string) System {
	return System{
		GOOS: goos,
		LookPath: func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", fs.ErrNotExist
		},
		IsExecutable: func(p string) bool {
			for _, f := range files {
				if f == p {
					return true
				}
			}
			return false
		},
		Getenv: func(k string) string { return env[k] },
	}
}

func TestSelectWindowsOrder(t *testing.T) {
	env := map[string]string{"ProgramFiles": `C:\Program Files`, "SystemRoot": `C:\WINDOWS`, "ProgramFiles(x86)": `C:\Program Files (x86)`}
	pwsh7 := `C:\Program Files\PowerShell\7\pwsh.exe`
	ps51 := `C:\WINDOWS\System32\WindowsPowerShell\v1.0\powershell.exe`
	gitBash := `C:\Program Files\Git\bin\bash.exe`
	tests := []struct {
		name   string
		onPath map[string]string
		files  []string
		choice string
		want   Shell
	}{
		{"pwsh on PATH comes first", map[string]string{"pwsh.exe": `D:\tools\pwsh.exe`, "bash.exe": `C:\WINDOWS\System32\bash.exe`}, []string{pwsh7, ps51, gitBash}, "", Shell{`D:\tools\pwsh.exe`, Pwsh}},
		{"then PowerShell 7's install folder", nil, []string{pwsh7, ps51, gitBash}, "auto", Shell{pwsh7, Pwsh}},
		{"then Windows PowerShell 5.1", nil, []string{ps51, gitBash}, "", Shell{ps51, PowerShell}},
		{"then Git Bash", map[string]string{"bash.exe": `C:\WINDOWS\System32\bash.exe`}, []string{gitBash}, "", Shell{gitBash, Bash}},
		{"then bash.exe on PATH", map[string]string{"bash.exe": `C:\msys64\usr\bin\bash.exe`}, nil, "", Shell{`C:\msys64\usr\bin\bash.exe`, Bash}},
		{"Git Bash beside git.exe on PATH", map[string]string{"git.exe": `E:\PortableGit\cmd\git.exe`}, []string{`E:\PortableGit\bin\bash.exe`, gitBash}, "git-bash", Shell{`E:\PortableGit\bin\bash.exe`, Bash}},
		{"Git Bash beside mingw64's git.exe", map[string]string{"git.exe": `E:\Git\mingw64\bin\git.exe`}, []string{`E:\Git\bin\bash.exe`}, "bash", Shell{`E:\Git\bin\bash.exe`, Bash}},
		{"Git Bash in Program Files (x86)", nil, []string{`C:\Program Files (x86)\Git\bin\bash.exe`, ps51}, "git-bash", Shell{`C:\Program Files (x86)\Git\bin\bash.exe`, Bash}},
		{"bash.shell pwsh skips 5.1", map[string]string{}, []string{pwsh7, ps51}, "pwsh", Shell{pwsh7, Pwsh}},
		{"bash.shell powershell takes 5.1", map[string]string{"pwsh.exe": `D:\pwsh.exe`}, []string{ps51}, "powershell", Shell{ps51, PowerShell}},
		{"bash.shell bash prefers Git Bash", map[string]string{"bash.exe": `C:\WINDOWS\System32\bash.exe`, "pwsh.exe": `D:\pwsh.exe`}, []string{gitBash}, "bash", Shell{gitBash, Bash}},
		{"an absolute path", nil, []string{`D:\cygwin\bin\zsh.exe`}, `D:\cygwin\bin\zsh.exe`, Shell{`D:\cygwin\bin\zsh.exe`, Sh}},
		{"an absolute pwsh path", nil, []string{`\\server\tools\pwsh.exe`}, `\\server\tools\pwsh.exe`, Shell{`\\server\tools\pwsh.exe`, Pwsh}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(fakeSystem("windows", tt.onPath, tt.files, env), tt.choice)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Select = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSelectWindowsDefaultsWithoutEnvironment(t *testing.T) {
	got, err := Select(fakeSystem("windows", nil, []string{`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`}, nil), "")
	if err != nil || got.Kind != PowerShell {
		t.Fatalf("Select = %+v, %v; want Windows PowerShell at the default SystemRoot", got, err)
	}
	got, err = Select(fakeSystem("windows", nil, []string{`C:\Program Files\PowerShell\7\pwsh.exe`}, nil), "")
	if err != nil || got.Kind != Pwsh {
		t.Fatalf("Select = %+v, %v; want PowerShell 7 at the default ProgramFiles", got, err)
	}
}

func TestSelectUnixOrder(t *testing.T) {
	tests := []struct {
		name   string
		onPath map[string]string
		files  []string
		choice string
		want   Shell
	}{
		{"/bin/bash first", map[string]string{"bash": "/usr/local/bin/bash"}, []string{"/bin/bash", "/bin/sh"}, "", Shell{"/bin/bash", Bash}},
		{"then bash on PATH", map[string]string{"bash": "/usr/local/bin/bash", "sh": "/usr/bin/sh"}, []string{"/bin/sh"}, "", Shell{"/usr/local/bin/bash", Bash}},
		{"then sh on PATH", map[string]string{"sh": "/usr/bin/sh"}, []string{"/bin/sh"}, "", Shell{"/usr/bin/sh", Sh}},
		{"then /bin/sh", nil, []string{"/bin/sh"}, "", Shell{"/bin/sh", Sh}},
		{"bash.shell sh", map[string]string{"bash": "/usr/bin/bash"}, []string{"/bin/bash", "/bin/sh"}, "sh", Shell{"/bin/sh", Sh}},
		{"bash.shell pwsh", map[string]string{"pwsh": "/opt/microsoft/powershell/7/pwsh"}, []string{"/bin/bash"}, "pwsh", Shell{"/opt/microsoft/powershell/7/pwsh", Pwsh}},
		{"an absolute path", nil, []string{"/usr/bin/zsh"}, "/usr/bin/zsh", Shell{"/usr/bin/zsh", Sh}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(fakeSystem("linux", tt.onPath, tt.files, nil), tt.choice)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Select = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSelectErrors(t *testing.T) {
	tests := []struct {
		goos, choice string
		notFound     bool
		want         string
	}{
		{"windows", "", true, `tried pwsh.exe on PATH, C:\Program Files\PowerShell\7\pwsh.exe, C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe, C:\Program Files\Git\bin\bash.exe, bash.exe on PATH`},
		{"linux", "", true, "tried /bin/bash, bash on PATH, sh on PATH, /bin/sh"},
		{"linux", "git-bash", true, "bash.shell git-bash is for Windows"},
		{"darwin", "powershell", true, "bash.shell powershell is for Windows"},
		{"linux", "/opt/nosuch", true, "/opt/nosuch, which is not an executable file"},
		{"linux", "fish", false, `bash.shell is "fish": expected an absolute path or one of auto, bash, sh, pwsh, powershell, git-bash`},
		{"windows", "/bin/bash", false, `bash.shell is "/bin/bash"`}, // not absolute on Windows
	}
	for _, tt := range tests {
		_, err := Select(fakeSystem(tt.goos, nil, nil, nil), tt.choice)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: err = %v, want it to contain %q", tt.goos, tt.choice, err, tt.want)
		}
		if errors.Is(err, ErrNotFound) != tt.notFound {
			t.Errorf("%s %q: errors.Is(err, ErrNotFound) = %v", tt.goos, tt.choice, !tt.notFound)
		}
	}
}

func TestKindOf(t *testing.T) {
	for file, want := range map[string]Kind{
		`C:\Program Files\PowerShell\7\PWSH.EXE`: Pwsh, "/usr/bin/pwsh": Pwsh,
		`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`: PowerShell,
		`C:\Git\bin\bash.exe`: Bash, "/bin/bash": Bash, "/bin/dash": Sh, "zsh": Sh,
	} {
		if got := KindOf(file); got != want {
			t.Errorf("KindOf(%q) = %s, want %s", file, got, want)
		}
	}
}

func TestParseLanguageMode(t *testing.T) {
	tests := []struct {
		out  string
		want LanguageMode
		ok   bool
	}{
		{"FullLanguage\r\n", FullLanguage, true},
		{"\ufeffConstrainedLanguage\n", ConstrainedLanguage, true},
		{"profile noise\r\nRestrictedLanguage\r\n\r\n", RestrictedLanguage, true},
		{"NoLanguage", NoLanguage, true},
		{"", "", false},
		{"Cannot dot-source this command because it was defined in a different language mode.\r\n", "", false},
		{"FullLanguage\r\nsomething else\r\n", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseLanguageMode(tt.out)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLanguageMode(%q) = %q, %v; want %q, %v", tt.out, got, ok, tt.want, tt.ok)
		}
	}
}

func TestProbeArgs(t *testing.T) {
	got := ProbeArgs(Shell{`C:\ps\powershell.exe`, PowerShell})
	want := []string{`C:\ps\powershell.exe`, "-NoProfile", "-NonInteractive", "-Command", "$ExecutionContext.SessionState.LanguageMode"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
