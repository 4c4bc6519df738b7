//go:build unix

package proctree

import (
	"bufio"
	"os/exec"
	"testing"
	"time"
)

// stubborn starts a process that ignores SIGTERM and returns it and a
// channel closed once it has exited.
func stubborn(t *testing.T) (Proc, <-chan struct{}) {
	t.Helper()
	// SIGTERM stays ignored through exec; "ready" comes once it is.
	cmd := exec.Command("sh", "-c", `trap "" TERM; echo ready; exec sleep 30`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the stubborn process said %q: %v", line, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	p, ok := Read(cmd.Process.Pid)
	if !ok {
		t.Fatal("Read of a running process failed")
	}
	return p, done
}

// forgetful lists p once and then never again, as a walk of descendants
// does once p's parent died where no subreaper re-parents p.
func forgetful(p Proc) func() []Proc {
	calls := 0
	return func() []Proc {
		calls++
		if calls == 1 {
			return []Proc{p}
		}
		return nil
	}
}

// Where no subreaper holds a tree (macOS, the BSDs), Stop keeps sweeping
// what it once saw: a process that ignores SIGTERM and has left its
// tree's listing is still killed.
func TestRememberingStopsWhatLeftTheTree(t *testing.T) {
	// Without the memory, the process outlives Stop.
	p, done := stubborn(t)
	if survivors := Stop(forgetful(p), 300*time.Millisecond); len(survivors) != 0 {
		t.Fatalf("survivors: %+v", survivors)
	}
	select {
	case <-done:
		t.Fatal("the process died without the memory: the test proves nothing")
	case <-time.After(500 * time.Millisecond):
	}

	// With it, SIGKILL reaches it after the grace period.
	p, done = stubborn(t)
	if survivors := Stop(remembering(forgetful(p)), 300*time.Millisecond); len(survivors) != 0 {
		t.Fatalf("survivors: %+v", survivors)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the remembered process was not stopped")
	}
}

func TestRememberingForgetsTheDead(t *testing.T) {
	p, done := stubborn(t)
	members := remembering(forgetful(p))
	if got := members(); len(got) != 1 || got[0].PID != p.PID {
		t.Fatalf("first sweep: %+v", got)
	}
	ForceKill(p.PID)
	<-done
	if got := members(); len(got) != 0 {
		t.Fatalf("a dead process is still listed: %+v", got)
	}
}
