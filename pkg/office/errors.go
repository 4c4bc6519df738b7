package office

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// ToolError turns a conversion error into the contract's error, naming
// the file as display and the damaged part.
func ToolError(display, format string, err error) error {
	var pe *PartError
	var te *TooLargeError
	kind := strings.ToUpper(format)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, ErrEncrypted):
		return &tool.Error{Code: tool.CodeEncrypted,
			Message: fmt.Sprintf("%s is a password-protected %s document", display, kind),
			Hint:    "mcode cannot take passwords; ask for an unprotected copy (save it again without a password)"}
	case errors.As(err, &te):
		return &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s: %v", display, te),
			Hint:    "inspect the archive with bash instead, e.g. unzip -l"}
	case errors.As(err, &pe):
		return &tool.Error{Code: tool.CodeCorruptFile,
			Message: fmt.Sprintf("%s is not a readable %s document: %v", display, kind, pe),
			Hint:    "the file may be damaged or truncated; ask for a fresh copy, or check it with bash (unzip -t)"}
	}
	return &tool.Error{Code: tool.CodeCorruptFile,
		Message: fmt.Sprintf("%s is not a readable %s document: %v", display, kind, err),
		Hint:    "the file may be damaged or truncated; ask for a fresh copy"}
}

// MIME is the media type of a format.
func MIME(format string) string {
	switch format {
	case DOCX:
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	case XLSX:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case PPTX:
		return "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	case ODT:
		return "application/vnd.oasis.opendocument.text"
	case ODS:
		return "application/vnd.oasis.opendocument.spreadsheet"
	case ODP:
		return "application/vnd.oasis.opendocument.presentation"
	}
	return "application/octet-stream"
}

// ConvertSafe is Convert with a parser panic turned into corrupt data:
// the input is untrusted and a bug must not take the process down.
func ConvertSafe(ctx context.Context, r io.ReaderAt, size int64, format string) (doc *Document, err error) {
	defer func() {
		if x := recover(); x != nil {
			doc, err = nil, &PartError{Err: fmt.Errorf("malformed document: %v", x)}
		}
	}()
	return Convert(ctx, r, size, format)
}
