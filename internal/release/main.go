// Command release packages the binaries scripts/release.sh built into
// what people install: an archive per target, SHA256SUMS, a software bill
// of materials per archive (from the build information `go version -m`
// reads), a Homebrew formula, a Scoop manifest and the npm package set
// (mcode, with one optional dependency per platform carrying its binary,
// as esbuild and biome ship theirs). It writes only into the dist folder.
//
//	go run ./internal/release -dist DIR -version V [-url BASE]
//
// DIR/bin/OS_ARCH/mcode[.exe] are the binaries; V is the semver version
// without a leading v; BASE is where the archives will be downloaded from.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "the dist folder, with bin/OS_ARCH/mcode[.exe] built")
	version := fs.String("version", "", "the version, semver without a leading v")
	url := fs.String("url", "", "where the archives are downloaded from (default: the GitHub release of the version)")
	epoch := fs.Int64("epoch", 0, "the time stamped on archive members, in Unix seconds (SOURCE_DATE_EPOCH)")
	only := fs.String("targets", "", "package only these targets (space-separated OS/ARCH; default: all)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := ValidVersion(*version); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		return 2
	}
	targets, err := parseTargets(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		return 2
	}
	r := Release{Dist: *dist, Version: *version, BaseURL: *url, Epoch: *epoch, Targets: targets}
	if r.BaseURL == "" {
		r.BaseURL = DefaultBaseURL(r.Version)
	}
	if err := r.Package(); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		return 1
	}
	return 0
}

// parseTargets reads "linux/amd64 darwin/arm64"; "" is every target.
func parseTargets(s string) ([]Target, error) {
	if strings.TrimSpace(s) == "" {
		return Targets, nil
	}
	var out []Target
	for _, f := range strings.Fields(s) {
		found := false
		for _, t := range Targets {
			if t.OS+"/"+t.Arch == f {
				out, found = append(out, t), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown target %q (known: linux, darwin, windows, freebsd × amd64, arm64)", f)
		}
	}
	return out, nil
}
