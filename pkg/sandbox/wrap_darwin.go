//go:build darwin

package sandbox

// Wrap is the argv that runs argv under pl: sandbox-exec with the plan's
// profile, then the program.
func Wrap(pl *Plan, argv []string) []string {
	if pl == nil {
		return argv
	}
	return append([]string{sandboxExec, "-p", pl.SeatbeltProfile()}, argv...)
}
