package tool

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, snake_case error code that scripts branch on.
type Code string

// The error codes of the contract (docs/contract.md, "Error codes").
const (
	CodeUsage             Code = "usage"
	CodeNotFound          Code = "not_found"
	CodeIsDirectory       Code = "is_directory"
	CodeNotADirectory     Code = "not_a_directory"
	CodePermission        Code = "permission"
	CodeBinaryFile        Code = "binary_file"
	CodeSpecialFile       Code = "special_file"
	CodeTooLarge          Code = "too_large"
	CodeNoMatch           Code = "no_match"
	CodeNotUnique         Code = "not_unique"
	CodeExists            Code = "exists" // the path to create is taken by another file
	CodeOverlappingEdits  Code = "overlapping_edits"
	CodeCountMismatch     Code = "count_mismatch"
	CodeStale             Code = "stale"
	CodeEncoding          Code = "encoding"
	CodeEncrypted         Code = "encrypted"    // the file needs a password or a cipher mcode lacks
	CodeCorruptFile       Code = "corrupt_file" // the file claims a format (PDF, image, notebook) but does not parse
	CodeTimeout           Code = "timeout"
	CodeInterrupted       Code = "interrupted"
	CodeExitStatus        Code = "exit_status"
	CodeDenied            Code = "denied"
	CodeApprovalRequired  Code = "approval_required"
	CodeChecksumMismatch  Code = "checksum_mismatch"
	CodeManifestMismatch  Code = "manifest_mismatch"
	CodeCorruptArchive    Code = "corrupt_archive"
	CodeUnsafeEntry       Code = "unsafe_entry"
	CodeServerUnavailable Code = "server_unavailable"
	CodeServerError       Code = "server_error" // an MCP server broke the protocol or answered with a JSON-RPC error
	CodeToolError         Code = "tool_error"
	CodeHTTPStatus        Code = "http_status"        // a web server answered with an error status (4xx, 5xx)
	CodeTooManyRedirects  Code = "too_many_redirects" // a redirect loop, or a chain longer than fetch follows
	CodeInvalidArgs       Code = "invalid_args"
	CodeBackgrounded      Code = "backgrounded" // a foreground bash call still running became a background task
	CodeInternal          Code = "internal"
)

// Exit codes of the contract (docs/contract.md, "Exit codes").
const (
	ExitOK               = 0
	ExitFailure          = 1
	ExitUsage            = 2
	ExitApprovalRequired = 75
	ExitDenied           = 77
	// ExitBackgrounded: a foreground call moved to the background while
	// its command still ran, so there is no status of the command yet.
	// Never 0, so `mcode bash 'make test' && deploy` does not deploy; a
	// code no shell or common tool gives (126-127 and 128+N are taken).
	ExitBackgrounded = 122
	ExitTimeout      = 124
	ExitInterrupted  = 130
)

// ExitCode maps an error code to the process exit status.
func (c Code) ExitCode() int {
	switch c {
	case "":
		return ExitOK
	case CodeUsage:
		return ExitUsage
	case CodeApprovalRequired:
		return ExitApprovalRequired
	case CodeDenied:
		return ExitDenied
	case CodeTimeout:
		return ExitTimeout
	case CodeBackgrounded:
		return ExitBackgrounded
	case CodeInterrupted:
		return ExitInterrupted
	default:
		return ExitFailure
	}
}

// Error is a failure the caller can act on: a stable code, a message with
// the facts, and a hint that names the next step.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// Exit overrides the exit status derived from Code (bash passes the
	// command's own status through).
	Exit int `json:"-"`
	// BadArgs marks a usage error of arguments that do not fit the tool's
	// schema (an unknown, missing or mistyped field): a command line
	// answers it with the tool's one-line usage.
	BadArgs bool `json:"-"`
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Hint)
}

// ExitCode is the process exit status this error asks for.
func (e *Error) ExitCode() int {
	if e.Exit != 0 {
		return e.Exit
	}
	return e.Code.ExitCode()
}

// Errorf builds an Error with a formatted message and no hint.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with its hint set, for chaining.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// AsError finds the typed Error in err's chain; anything else becomes
// internal, with the original text kept for debugging.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{
		Code:    CodeInternal,
		Message: err.Error(),
		Hint:    "this is a fault in mcode itself; please report it with the command that caused it",
	}
}

// ExitInfo is one exit status as the guides list it: what it means and
// what to do about it.
type ExitInfo struct {
	Code int
	// Short names it in a line of help; Meaning says it in full.
	Short, Meaning, Next string
}

// ExitCodes is the one table of mcode's exit statuses: the skill's
// table, mcode --help, mcode bash --help and the docs (checked by a
// test) all come from it.
var ExitCodes = []ExitInfo{
	{ExitOK, "ok", "ok", "read `output`"},
	{ExitFailure, "tool failure", "the tool failed (`error.code` says how)", "follow `error.hint`"},
	{ExitUsage, "usage", "usage: a wrong flag, argument or parameter", "fix the call; the hint gives the usage line"},
	{ExitApprovalRequired, "approval required", "approval required", "ask a person (see Approvals)"},
	{ExitDenied, "denied", "denied by a rule, the agent profile or the role", "do it another way"},
	{ExitBackgrounded, "moved to the background (mcode bash)", "`mcode bash`: the command still runs, moved to the background (`result.task_id`)", "`mcode task wait ID` or `mcode task output ID`"},
	{ExitTimeout, "timeout", "timed out", "raise `--timeout`, narrow the call, or run it in the background"},
	{ExitInterrupted, "interrupted", "interrupted by a signal", "run it again if still needed"},
}

// ExitCodesLine lists the exit statuses on one line, for help texts:
// "0 ok, 1 the tool failed, …".
func ExitCodesLine() string {
	parts := make([]string, len(ExitCodes))
	for i, e := range ExitCodes {
		parts[i] = fmt.Sprintf("%d %s", e.Code, e.Short)
	}
	return strings.Join(parts, ", ")
}
