package mcpserve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcode-dev/mcode/pkg/fsutil"
)

// TokenBytes is the size of a generated token, before hex encoding.
const TokenBytes = 32

// Token is the bearer token of an HTTP server and where it came from.
type Token struct {
	Value string
	// Source is MCODE_SERVE_TOKEN, serve.token, or the file it was
	// written to; File is that file ("" when it came from elsewhere).
	Source, File string
}

// ResolveToken picks the token: fromEnv, else fromConfig, else a new
// random one written to dataDir/serve/token with mode 0600 (a token from a
// previous run stops working).
func ResolveToken(fromEnv, fromConfig, dataDir string) (Token, error) {
	switch {
	case fromEnv != "":
		return Token{Value: fromEnv, Source: "MCODE_SERVE_TOKEN"}, nil
	case fromConfig != "":
		return Token{Value: fromConfig, Source: "serve.token"}, nil
	}
	dir := filepath.Join(dataDir, "serve")
	file := filepath.Join(dir, "token")
	value := fsutil.RandomHex(TokenBytes)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Token{}, fmt.Errorf("creating the token folder: %w", err)
	}
	// The old file goes first: a replacement would keep its mode, and the
	// token must be readable by its owner only.
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Token{}, fmt.Errorf("replacing the token file: %w", err)
	}
	if err := fsutil.CreateFileAtomic(file, []byte(value+"\n"), 0o600); err != nil {
		return Token{}, fmt.Errorf("writing the token file: %w", err)
	}
	return Token{Value: value, Source: file, File: file}, nil
}
