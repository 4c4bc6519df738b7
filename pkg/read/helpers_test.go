package read

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// testEnv is a tool environment rooted in a fresh temp dir, with the
// default config.
func testEnv(t testing.TB) *tool.Env {
	t.Helper()
	root := t.TempDir()
	cfg := config.Defaults()
	return &tool.Env{
		Root: root, DataDir: filepath.Join(root, ".mcode-home"), UserHome: filepath.Join(root, "home"),
		Config: &cfg, Now: time.Now,
	}
}

// write creates a file under the env's root and returns its path.
func write(t testing.TB, env *tool.Env, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(env.Root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustRead runs a read that must succeed.
func mustRead(t testing.TB, env *tool.Env, p Params) (*tool.Response, *Result) {
	t.Helper()
	resp, err := Run(context.Background(), env, p)
	if err != nil {
		t.Fatalf("Run(%+v): %v", p, err)
	}
	res, ok := resp.Result.(Result)
	if !ok {
		t.Fatalf("result is %T", resp.Result)
	}
	return resp, &res
}

// readErr runs a read that must fail with code and returns the error.
func readErr(t testing.TB, env *tool.Env, p Params, code tool.Code) *tool.Error {
	t.Helper()
	resp, err := Run(context.Background(), env, p)
	var te *tool.Error
	if !errors.As(err, &te) {
		t.Fatalf("Run(%+v) = %v, %v; want a %s error", p, resp, err, code)
	}
	if te.Code != code {
		t.Fatalf("Run(%+v): code %s (%s), want %s", p, te.Code, te.Message, code)
	}
	if te.Message == "" || te.Hint == "" {
		t.Errorf("error without message or hint: %+v", te)
	}
	return te
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// numbered is the reference rendering of lines from first: the format
// the contract names, %6d→line.
func numbered(first int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d→%s\n", first+i, l)
	}
	return b.String()
}
