package osshell

import (
	"strings"
)

// LanguageMode is a PowerShell session's language mode, as
// $ExecutionContext.SessionState.LanguageMode prints it.
type LanguageMode string

// Language modes the wrappers tell apart. App Control and AppLocker put a
// locked-down machine's PowerShell in ConstrainedLanguage, where the .NET
// calls of the FullLanguage wrapper are refused before the command runs.
const (
	FullLanguage        LanguageMode = "FullLanguage"
	ConstrainedLanguage LanguageMode = "ConstrainedLanguage"
	RestrictedLanguage  LanguageMode = "RestrictedLanguage"
	NoLanguage          LanguageMode = "NoLanguage"
)

// ProbeScript prints the language mode; ProbeArgs runs it.
const ProbeScript = "$ExecutionContext.SessionState.LanguageMode"

// PowerShellFlags start PowerShell without the user's profile (its
// output and side effects are not the command's) and without prompts.
var PowerShellFlags = []string{"-NoProfile", "-NonInteractive", "-Command"}

// ProbeArgs is the argv of the language-mode probe of sh.
func ProbeArgs(sh Shell) []string {
	return append(append([]string{sh.Path}, PowerShellFlags...), ProbeScript)
}

// ParseLanguageMode reads the probe's output: the last non-empty line,
// one of the known modes. Anything else (an error, a profile's chatter
// cut short) is ok=false, and the caller assumes ConstrainedLanguage,
// whose launcher works in every mode that runs scripts at all.
func ParseLanguageMode(out string) (LanguageMode, bool) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(strings.TrimPrefix(lines[i], "\ufeff"))
		if line == "" {
			continue
		}
		switch m := LanguageMode(line); m {
		case FullLanguage, ConstrainedLanguage, RestrictedLanguage, NoLanguage:
			return m, true
		}
		return "", false
	}
	return "", false
}

// FullLanguageScript is the FullLanguage wrapper: it reads the command
// from stdin as UTF-8 bytes (so no code page, quoting rule or Base64
// expansion of the command line touches it, and no .ps1 file is left for
// an execution policy to refuse or a crash to leave behind), sets the
// console to UTF-8, parses it with Parser.ParseInput (a syntax error is
// reported before anything runs), checks its #requires version and
// elevation, and runs it through ScriptBlock.Create. The exit status is
// the last native command's, or 1 after a terminating error. Neither
// wrapper holds a double quote: Windows' command-line quoting, which
// PowerShell 5.1 reads its own way, leaves them as written.
const FullLanguageScript = `try { [Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false) } catch {}
$OutputEncoding = [System.Text.UTF8Encoding]::new($false)
$mcodeIn = [Console]::OpenStandardInput()
$mcodeBuf = [System.IO.MemoryStream]::new()
$mcodeIn.CopyTo($mcodeBuf)
$mcodeSource = [System.Text.UTF8Encoding]::new($false).GetString($mcodeBuf.ToArray())
$mcodeTokens = $null
$mcodeErrors = $null
$mcodeAst = [System.Management.Automation.Language.Parser]::ParseInput($mcodeSource, [ref]$mcodeTokens, [ref]$mcodeErrors)
if ($mcodeErrors.Count -gt 0) {
  foreach ($mcodeError in $mcodeErrors) { [Console]::Error.WriteLine('mcode: parse error at line ' + $mcodeError.Extent.StartLineNumber + ': ' + $mcodeError.Message) }
  exit 1
}
$mcodeNeeds = $mcodeAst.ScriptRequirements
if ($null -ne $mcodeNeeds) {
  if ($null -ne $mcodeNeeds.RequiredPSVersion -and $PSVersionTable.PSVersion -lt $mcodeNeeds.RequiredPSVersion) {
    [Console]::Error.WriteLine('mcode: the command #requires PowerShell ' + $mcodeNeeds.RequiredPSVersion + '; this is ' + $PSVersionTable.PSVersion)
    exit 1
  }
  if ($mcodeNeeds.IsElevationRequired -and -not ([Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
    [Console]::Error.WriteLine('mcode: the command #requires -RunAsAdministrator; this PowerShell is not elevated')
    exit 1
  }
}
Remove-Variable mcodeIn, mcodeBuf, mcodeTokens, mcodeErrors, mcodeAst, mcodeNeeds
$global:LASTEXITCODE = 0
try {
  . ([ScriptBlock]::Create($mcodeSource))
} catch {
  [Console]::Error.WriteLine($_.ToString())
  exit 1
}
exit $global:LASTEXITCODE
`

// SourceVarPrefix starts the name of the one-time variable that carries a
// command to the ConstrainedLanguage launcher.
const SourceVarPrefix = "MCODE_POWERSHELL_SOURCE_"

// SourceVar is the launcher's variable for a random suffix (letters and
// digits only: it is spliced into the launcher's text).
func SourceVar(suffix string) string { return SourceVarPrefix + suffix }

// ConstrainedLauncher is the ConstrainedLanguage wrapper for the command
// in environment variable name: it reads the variable, removes it at once
// (the command's own processes never see it), and runs the text with
// Invoke-Expression, in the same constrained mode. It uses no .NET call:
// a constrained session refuses them.
func ConstrainedLauncher(name string) string {
	return `$mcodeSource = $env:` + name + `
Remove-Item -LiteralPath 'Env:` + name + `' -ErrorAction SilentlyContinue
$global:LASTEXITCODE = 0
Invoke-Expression $mcodeSource
exit $global:LASTEXITCODE
`
}

// Invocation is how a command is handed to its shell: the argv, what is
// written to its stdin before it is closed ("" leaves stdin on the null
// device), and variables added to its environment.
type Invocation struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin,omitempty"`
	Env   []string `json:"env,omitempty"`
}

// Invoke is how sh runs command. A PowerShell in mode ConstrainedLanguage
// (or one whose mode is unknown: the probe failed) gets the launcher and
// the command in the one-time variable named with suffix; any other
// PowerShell gets the FullLanguage script and the command on stdin.
func Invoke(sh Shell, mode LanguageMode, command, suffix string) Invocation {
	if !sh.Kind.IsPowerShell() {
		return Invocation{Args: []string{sh.Path, "-c", command}}
	}
	args := append([]string{sh.Path}, PowerShellFlags...)
	if mode == FullLanguage {
		return Invocation{Args: append(args, FullLanguageScript), Stdin: command}
	}
	name := SourceVar(suffix)
	return Invocation{Args: append(args, ConstrainedLauncher(name)), Env: []string{name + "=" + command}}
}
