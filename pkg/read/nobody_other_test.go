//go:build !unix

package read

import "testing"

func runAsNobody(t *testing.T, dir, test string) {
	t.Skip("running as another user needs a unix system")
}
