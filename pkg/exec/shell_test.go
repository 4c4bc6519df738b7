//go:build unix

package exec

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/config"
)

// fakePwsh is a stand-in for PowerShell 7 that answers the language-mode
// probe with mode and shows what reached it: for the FullLanguage script
// its stdin, for the launcher the variable the launcher names, in hex
// (the bash tool's output drops carriage returns; the transport must not).
func fakePwsh(t *testing.T, mode string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pwsh")
	script := `#!/bin/sh
[ "$1 $2 $3" = "-NoProfile -NonInteractive -Command" ] || { echo "bad flags: $*" >&2; exit 90; }
case "$4" in
'$ExecutionContext.SessionState.LanguageMode') echo ` + mode + `; exit 0 ;;
'try {'*) printf 'stdin:'; od -An -tx1 | tr -d ' \n'; exit 0 ;;
'$mcodeSource = $env:'*)
  name=$(printf '%s\n' "$4" | head -1 | sed 's/^.*\$env://')
  printf 'env %s:' "$name"; eval "printf '%s' \"\$$name\"" | od -An -tx1 | tr -d ' \n'; exit 0 ;;
esac
echo "unknown script: $4" >&2; exit 91
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The command reaches PowerShell byte for byte however it is carried:
// on stdin under FullLanguage, in a one-time variable under
// ConstrainedLanguage; the probe's answer is kept in MCODE_HOME.
func TestPowerShellTransport(t *testing.T) {
	const command = `Write-Output "héllo 'world'" $env:PATH; ` + "\r\n" + `exit 3`
	for _, tt := range []struct{ mode, want string }{
		{"FullLanguage", "stdin:"},
		{"ConstrainedLanguage", "env MCODE_POWERSHELL_SOURCE_"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			pwsh := fakePwsh(t, tt.mode)
			env := testEnv(t, func(b *config.Bash) { b.Shell = pwsh; b.TrashShim = false })
			out, res, terr := bash(t, env, map[string]any{"command": command})
			if terr != nil {
				t.Fatalf("error %+v\n%s", terr, out)
			}
			if res.Shell != pwsh || !strings.HasPrefix(out, tt.want) || !strings.HasSuffix(strings.TrimSpace(out), ":"+hex.EncodeToString([]byte(command))) {
				t.Fatalf("shell %s, output %q", res.Shell, out)
			}
			cache, err := os.ReadFile(filepath.Join(env.DataDir, shellModesFile))
			if err != nil || !strings.Contains(string(cache), `"mode":"`+tt.mode+`"`) {
				t.Fatalf("the probe's answer was not kept: %s %v", cache, err)
			}
		})
	}
}

func TestShellChoiceNotFound(t *testing.T) {
	env := testEnv(t, func(b *config.Bash) { b.Shell = "/nonexistent/zsh" })
	_, _, terr := bash(t, env, map[string]any{"command": "true"})
	if terr == nil || !strings.Contains(terr.Message, "command not run") || !strings.Contains(terr.Hint, "bash.shell") {
		t.Fatalf("error %+v", terr)
	}
}
