package iostreams

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestWithContextReadsThrough(t *testing.T) {
	data, err := io.ReadAll(WithContext(context.Background(), strings.NewReader(strings.Repeat("abc", 10000))))
	if err != nil || len(data) != 30000 {
		t.Fatalf("read %d bytes, %v", len(data), err)
	}
}

// A read that would block for ever (a pipe nobody writes) gives up when
// the context is cancelled.
func TestWithContextGivesUpOnCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	_, err := io.ReadAll(WithContext(ctx, pr))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
