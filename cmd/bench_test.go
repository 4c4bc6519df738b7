package cmd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcode-dev/mcode/pkg/mcpserve"
)

// BenchmarkSmallCall measures one whole small call in-process: building
// the command tree, config, schema, the tool and the envelope.
func BenchmarkSmallCall(b *testing.B) {
	for _, argv := range [][]string{{"version"}, {"datetime"}, {"datetime", "--tz", "UTC"}} {
		b.Run(argv[0]+"-"+string(rune('0'+len(argv))), func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f, _ := factoryIn(dir, nil)
				if code := Run(context.Background(), f, argv); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}

// BenchmarkReadSmall is P1 in-process: mcode read on a 20-line file.
func BenchmarkReadSmall(b *testing.B) {
	dir := b.TempDir()
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte(strings.Repeat("// a line of code\n", 20)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, _ := factoryIn(dir, nil)
		if code := Run(context.Background(), f, []string{"read", small}); code != 0 {
			b.Fatal(code)
		}
	}
}

// BenchmarkMCPRead is P17's per-call cost: one read of a 20-line file
// through the process's dispatcher, and the same call from a go-sdk MCP
// client over a stdio pipe to mcp serve; the difference is what serving
// over MCP adds to each call.
func BenchmarkMCPRead(b *testing.B) {
	dir := b.TempDir()
	small := filepath.Join(dir, "small.go")
	if err := os.WriteFile(small, []byte(strings.Repeat("// a line of code\n", 20)), 0o644); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"path": "small.go"}`)
	f, _ := factoryIn(dir, nil)
	d, err := f.Dispatcher()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dispatch", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if env := d.Call(context.Background(), "read", args); !env.OK {
				b.Fatal(env.Error)
			}
		}
	})
	b.Run("mcp-stdio", func(b *testing.B) {
		srv, err := mcpserve.New(context.Background(), d, mcpserve.Options{Name: "mcode"})
		if err != nil {
			b.Fatal(err)
		}
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- srv.ServeStdio(context.Background(), sr, sw) }()
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			b.Fatal(err)
		}
		params := &mcp.CallToolParams{Name: "read", Arguments: args}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
		b.StopTimer()
		_ = cw.Close()
		_ = cs.Close()
		<-done
	})
}
