package mcpserve

import (
	"os"
	"runtime/debug"
	"sync"
)

// serverGCPercent is the collector's target while a server runs. The SDK
// decodes each message through a fresh 32 KiB buffer (two to four of them
// for every tools/call), garbage at once, while the server keeps about a
// MiB live: at Go's default (100, a 4 MiB heap at least) it collected
// every dozen calls, near a fifth of a served read. At 400 (a 16 MiB heap
// at least) it collects a quarter as often.
const serverGCPercent = 400

var gcTuning struct {
	sync.Mutex
	servers int // running
	old     int
}

// tuneGC sets serverGCPercent while any server runs, unless the person
// set GOGC themselves; the returned func, called when the server stops,
// puts the old target back after the last one.
func tuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	g := &gcTuning
	g.Lock()
	defer g.Unlock()
	if g.servers++; g.servers == 1 {
		g.old = debug.SetGCPercent(serverGCPercent)
	}
	return func() {
		g.Lock()
		defer g.Unlock()
		if g.servers--; g.servers == 0 {
			debug.SetGCPercent(g.old)
		}
	}
}
