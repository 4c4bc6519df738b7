package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// sandboxExec is macOS's tool that runs a program under a Seatbelt
// profile.
const sandboxExec = "/usr/bin/sandbox-exec"

// SeatbeltProfile is the plan as a macOS sandbox profile (SBPL): nothing
// is allowed unless a rule says so; reading everywhere but the hidden
// paths, writing in the writable set but not the held paths, the network
// as the policy says. Unlike Landlock, SBPL can subtract (require-not),
// so protected paths need no mounts there.
func (pl *Plan) SeatbeltProfile() string {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	// What a program needs to run at all.
	b.WriteString("(allow process-exec process-fork)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm ipc-posix-sem)\n(allow pseudo-tty)\n(allow file-ioctl)\n(allow iokit-open)\n")

	b.WriteString("(allow file-read*\n  (require-all (subpath \"/\")")
	for _, h := range pl.Hidden {
		fmt.Fprintf(&b, "\n    (require-not (subpath %s))", sbplString(h))
	}
	b.WriteString("))\n")

	b.WriteString("(allow file-write*")
	for _, w := range pl.Writable {
		match := "subpath"
		if w.File {
			match = "literal"
		}
		var held []string
		for _, h := range pl.Held {
			if within(h, w.Path) {
				held = append(held, h)
			}
		}
		if len(held) == 0 {
			fmt.Fprintf(&b, "\n  (%s %s)", match, sbplString(w.Path))
			continue
		}
		fmt.Fprintf(&b, "\n  (require-all (%s %s)", match, sbplString(w.Path))
		for _, h := range held {
			fmt.Fprintf(&b, "\n    (require-not (subpath %s))", sbplString(h))
		}
		b.WriteString(")")
	}
	b.WriteString(")\n")

	switch {
	case pl.NetOff:
		b.WriteString("(allow network* (local unix) (remote unix))\n")
	case len(pl.Ports) > 0:
		b.WriteString("(allow network* (local unix) (remote unix))\n(allow network-outbound")
		for _, p := range pl.Ports {
			fmt.Fprintf(&b, "\n  (remote tcp \"*:%s\")", strconv.Itoa(int(p)))
		}
		b.WriteString(")\n(allow network-outbound (remote udp \"*:53\"))\n")
	default:
		b.WriteString("(allow network*)\n")
	}
	return b.String()
}

// sbplString quotes a path for SBPL: a string in double quotes with
// backslash escapes.
func sbplString(s string) string {
	return strconv.Quote(s)
}
