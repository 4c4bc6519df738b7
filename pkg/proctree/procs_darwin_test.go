package proctree

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestFromKinfo(t *testing.T) {
	var k unix.KinfoProc
	k.Proc.P_pid, k.Eproc.Ppid, k.Eproc.Pgid = 4242, 17, 4200
	k.Proc.P_stat = szomb
	k.Proc.P_starttime = unix.Timeval{Sec: 1700000000, Usec: 250}
	copy(k.Proc.P_comm[:], "sleep")
	e := fromKinfo(&k)
	want := Proc{PID: 4242, PPID: 17, State: 'Z', Start: 1700000000*1_000_000 + 250, Comm: "sleep"}
	if e.Proc != want || e.pgid != 4200 {
		t.Fatalf("fromKinfo = %+v (pgid %d), want %+v (pgid 4200)", e.Proc, e.pgid, want)
	}
}

func TestReadSelf(t *testing.T) {
	p, ok := Read(os.Getpid())
	if !ok || p.PID != os.Getpid() || p.PPID != os.Getppid() || p.Dead() || p.Start == 0 {
		t.Fatalf("Read(self) = %+v, %v", p, ok)
	}
}
