package osshell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The wrappers are pinned byte for byte: a change to either is a change
// to what runs every command on Windows, and must show up here.

const wantFullLanguage = "try { [Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false) } catch {}\n" +
	"$OutputEncoding = [System.Text.UTF8Encoding]::new($false)\n" +
	"$mcodeIn = [Console]::OpenStandardInput()\n" +
	"$mcodeBuf = [System.IO.MemoryStream]::new()\n" +
	"$mcodeIn.CopyTo($mcodeBuf)\n" +
	"$mcodeSource = [System.Text.UTF8Encoding]::new($false).GetString($mcodeBuf.ToArray())\n" +
	"$mcodeTokens = $null\n" +
	"$mcodeErrors = $null\n" +
	"$mcodeAst = [System.Management.Automation.Language.Parser]::ParseInput($mcodeSource, [ref]$mcodeTokens, [ref]$mcodeErrors)\n" +
	"if ($mcodeErrors.Count -gt 0) {\n" +
	"  foreach ($mcodeError in $mcodeErrors) { [Console]::Error.WriteLine('mcode: parse error at line ' + $mcodeError.Extent.StartLineNumber + ': ' + $mcodeError.Message) }\n" +
	"  exit 1\n" +
	"}\n" +
	"$mcodeNeeds = $mcodeAst.ScriptRequirements\n" +
	"if ($null -ne $mcodeNeeds) {\n" +
	"  if ($null -ne $mcodeNeeds.RequiredPSVersion -and $PSVersionTable.PSVersion -lt $mcodeNeeds.RequiredPSVersion) {\n" +
	"    [Console]::Error.WriteLine('mcode: the command #requires PowerShell ' + $mcodeNeeds.RequiredPSVersion + '; this is ' + $PSVersionTable.PSVersion)\n" +
	"    exit 1\n" +
	"  }\n" +
	"  if ($mcodeNeeds.IsElevationRequired -and -not ([Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {\n" +
	"    [Console]::Error.WriteLine('mcode: the command #requires -RunAsAdministrator; this PowerShell is not elevated')\n" +
	"    exit 1\n" +
	"  }\n" +
	"}\n" +
	"Remove-Variable mcodeIn, mcodeBuf, mcodeTokens, mcodeErrors, mcodeAst, mcodeNeeds\n" +
	"$global:LASTEXITCODE = 0\n" +
	"try {\n" +
	"  . ([ScriptBlock]::Create($mcodeSource))\n" +
	"} catch {\n" +
	"  [Console]::Error.WriteLine($_.ToString())\n" +
	"  exit 1\n" +
	"}\n" +
	"exit $global:LASTEXITCODE\n"

const wantLauncher = "$mcodeSource = $env:MCODE_POWERSHELL_SOURCE_0f3a9c\n" +
	"Remove-Item -LiteralPath 'Env:MCODE_POWERSHELL_SOURCE_0f3a9c' -ErrorAction SilentlyContinue\n" +
	"$global:LASTEXITCODE = 0\n" +
	"Invoke-Expression $mcodeSource\n" +
	"exit $global:LASTEXITCODE\n"

func TestWrappersByteForByte(t *testing.T) {
	if diff := cmp.Diff(wantFullLanguage, FullLanguageScript); diff != "" {
		t.Errorf("FullLanguageScript (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLauncher, ConstrainedLauncher(SourceVar("0f3a9c"))); diff != "" {
		t.Errorf("ConstrainedLauncher (-want +got):\n%s", diff)
	}
	// Windows' command-line quoting (which powershell.exe reads its own
	// way) only ever touches double quotes and the backslashes before
	// them: neither wrapper has one.
	for name, text := range map[string]string{"FullLanguageScript": FullLanguageScript, "ConstrainedLauncher": ConstrainedLauncher(SourceVar("0f3a9c"))} {
		if strings.ContainsAny(text, "\"\\") {
			t.Errorf("%s holds a double quote or a backslash", name)
		}
	}
}

func TestInvoke(t *testing.T) {
	const command = "Write-Output \"héllo\"; git status\r\nexit 3"
	pwsh := Shell{`C:\Program Files\PowerShell\7\pwsh.exe`, Pwsh}
	ps51 := Shell{`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, PowerShell}
	tests := []struct {
		name string
		sh   Shell
		mode LanguageMode
		want Invocation
	}{
		{"bash takes -c", Shell{"/bin/bash", Bash}, "", Invocation{Args: []string{"/bin/bash", "-c", command}}},
		{"Git Bash takes -c", Shell{`C:\Git\bin\bash.exe`, Bash}, FullLanguage, Invocation{Args: []string{`C:\Git\bin\bash.exe`, "-c", command}}},
		{"sh takes -c", Shell{"/bin/sh", Sh}, "", Invocation{Args: []string{"/bin/sh", "-c", command}}},
		{"FullLanguage: the script, the command on stdin", ps51, FullLanguage,
			Invocation{Args: []string{ps51.Path, "-NoProfile", "-NonInteractive", "-Command", wantFullLanguage}, Stdin: command}},
		{"PowerShell 7 the same", pwsh, FullLanguage,
			Invocation{Args: []string{pwsh.Path, "-NoProfile", "-NonInteractive", "-Command", wantFullLanguage}, Stdin: command}},
		{"ConstrainedLanguage: the launcher, the command in its variable", ps51, ConstrainedLanguage,
			Invocation{Args: []string{ps51.Path, "-NoProfile", "-NonInteractive", "-Command", wantLauncher}, Env: []string{"MCODE_POWERSHELL_SOURCE_0f3a9c=" + command}}},
		{"an unknown mode gets the launcher", pwsh, "",
			Invocation{Args: []string{pwsh.Path, "-NoProfile", "-NonInteractive", "-Command", wantLauncher}, Env: []string{"MCODE_POWERSHELL_SOURCE_0f3a9c=" + command}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Invoke(tt.sh, tt.mode, command, "0f3a9c")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Invoke (-want +got):\n%s", diff)
			}
		})
	}
}
