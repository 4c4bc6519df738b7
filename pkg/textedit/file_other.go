//go:build !unix

package textedit

import "errors"

const openNoBlock = 0

var errNotDir = errors.New("not a directory")

var errLoop = errors.New("too many levels of symbolic links")
