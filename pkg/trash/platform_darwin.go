package trash

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// recordsFolder holds, in MCODE_HOME, mcode's records of what it put in
// the macOS trash.
const recordsFolder = "trash-records"

// platformCan makes c the macOS trash: ~/.Trash, a volume's .Trashes/UID,
// and mcode's records in MCODE_HOME.
func platformCan(c *Can, env *tool.Env) {
	home := env.UserHome
	if home == "" {
		return // HomeTrash found none either: Put refuses
	}
	c.Layout = MacTrash
	c.Home = filepath.Join(home, ".Trash")
	if env.DataDir != "" {
		c.Records = filepath.Join(env.DataDir, recordsFolder)
	}
}

// putRecycleBin: only Windows' shell recycles.
func (c *Can) putRecycleBin(ctx context.Context, path string) (*Entry, error) {
	return nil, errors.New("the Recycle Bin is Windows': nothing was moved")
}
