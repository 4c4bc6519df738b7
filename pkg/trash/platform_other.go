//go:build !darwin && !windows

package trash

import (
	"context"
	"errors"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// platformCan keeps the FreeDesktop trash: this platform has no other.
func platformCan(c *Can, env *tool.Env) {}

// putRecycleBin: only Windows' shell recycles.
func (c *Can) putRecycleBin(ctx context.Context, path string) (*Entry, error) {
	return nil, errors.New("the Recycle Bin is Windows': nothing was moved")
}
