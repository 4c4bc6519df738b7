package search

import "github.com/bmatcuk/doublestar/v4"

var doublestarMatch = doublestar.Match
