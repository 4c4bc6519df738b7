//go:build !unix

package trash

import (
	"errors"
	"io/fs"
	"time"
)

type fileID struct{ dev, ino uint64 }

func diskBlocks(info fs.FileInfo) (int64, fileID, bool) { return info.Size(), fileID{}, false }
func device(info fs.FileInfo) uint64                    { return 0 }
func inode(info fs.FileInfo) uint64                     { return 0 }
func writable(path string) bool                         { return true }
func getuid() int                                       { return 0 }
func isCrossDevice(err error) bool                      { return false }

func mkfifo(path string) error                               { return errors.New("fifos are not supported here") }
func preserveOwner(path string, info fs.FileInfo, link bool) {}

func owner(info fs.FileInfo) int { return 0 }

func lchtimes(path string, atime, mtime time.Time) error { return nil }

func canRemove(path string) error { return nil }
