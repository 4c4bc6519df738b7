// Command gen-docs writes mcode's generated reference: a Markdown page per
// command into docs/tools (the repository's copy, which a test keeps
// current), and with --man DIR the man pages, both from the commands' help
// and the text and schema each tool gives the model.
//
//	go run ./cmd/gen-docs                # rewrite docs/tools
//	go run ./cmd/gen-docs --man DIR      # and write the man pages into DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcode-dev/mcode/cmd"
)

func main() {
	dir := flag.String("dir", cmd.ReferenceDir, "folder of the Markdown pages (emptied of stale pages first)")
	man := flag.String("man", "", "also write the man pages into this folder")
	flag.Parse()
	if err := cmd.GenerateReference(*dir, *man); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
}
