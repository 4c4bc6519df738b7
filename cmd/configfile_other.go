//go:build !unix

package cmd

const nonblockFlag = 0
