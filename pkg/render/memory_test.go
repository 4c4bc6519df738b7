package render

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// peakHeap is the most heap f held live, sampled every millisecond
// (a sample may miss a short peak, never invent one).
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}

// TestOfficeMemoryStaysBounded: a large table or list renders to
// docx, xlsx and pptx holding a small part of it at a time (the whole
// document cost about 90 times its size: 755 MB for an 8 MB table).
func TestOfficeMemoryStaysBounded(t *testing.T) {
	size := 3 << 20
	if testing.Short() {
		size = 1 << 20
	}
	var table, list strings.Builder
	table.WriteString("# Data\n\n| id | name | value | note |\n|---|---|---:|---|\n")
	for i := 0; table.Len() < size; i++ {
		fmt.Fprintf(&table, "| %d | item %d | %d.25 | some *note* for row %d |\n", i, i, i*3, i)
	}
	list.WriteString("# List\n\n")
	for i := 0; list.Len() < size; i++ {
		fmt.Fprintf(&list, "- item **%d**\n", i)
	}
	env := testEnv(t)
	write(t, filepath.Join(env.Root, "table.md"), []byte(table.String()))
	write(t, filepath.Join(env.Root, "list.md"), []byte(list.String()))
	const limit = 40 << 20
	for _, src := range []string{"table.md", "list.md"} {
		for _, format := range []string{"docx", "xlsx", "pptx"} {
			if format == "xlsx" && src == "list.md" {
				continue // no table: refused
			}
			var err error
			peak := peakHeap(func() {
				_, err = Render(t.Context(), env, Params{Format: format, Source: src, Out: src + "." + format})
			})
			if err != nil {
				t.Fatalf("%s %s: %v", format, src, err)
			}
			t.Logf("%s of %s: peak heap %d MiB", format, src, peak>>20)
			if peak > limit {
				t.Errorf("%s of a %d MiB %s held %d MiB of heap at its peak, want at most %d MiB", format, size>>20, src, peak>>20, limit>>20)
			}
		}
	}
}
