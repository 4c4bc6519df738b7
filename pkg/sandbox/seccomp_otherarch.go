//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// seccompSupported: no filter is built for this architecture, and the
// status says so.
const seccompSupported = false

func loadSeccomp(*Plan) error {
	return errors.New("mcode builds no seccomp filter for this architecture")
}
