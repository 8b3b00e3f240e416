package datasets

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound is matched (with errors.Is) by the error a loader returns when
// no copy of a dataset was found and none could be downloaded. The concrete
// error is a *NotFoundError listing every place that was searched.
var ErrNotFound = errors.New("datasets: data not found")

// ErrFormat is matched (with errors.Is) by every error about a data file that
// exists but is not what it should be: wrong magic number, unexpected
// dimensions, truncated content. The concrete error is a *FormatError.
var ErrFormat = errors.New("datasets: malformed data file")

// FormatError reports a data file that exists but cannot be used. It names
// the file because the usual fix is to delete or re-download that one file.
type FormatError struct {
	Path    string // the offending file
	Problem string // what was wrong, e.g. "truncated: want 47040016 bytes of pixels, got 1000"
}

func (e *FormatError) Error() string { return "datasets: " + e.Path + ": " + e.Problem }

// Unwrap lets errors.Is(err, ErrFormat) match any FormatError.
func (e *FormatError) Unwrap() error { return ErrFormat }

func formatErrorf(path, format string, args ...any) error {
	return &FormatError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

// NotFoundError reports that a dataset was found nowhere. It keeps the whole
// search so that a user can see at a glance where the loader looked and
// put the files in any of those places.
type NotFoundError struct {
	Dataset  string   // "mnist" or "fashion-mnist"
	Searched []string // every place looked at, in order, each with why it did not qualify
	Download error    // why downloading failed (or was disabled); nil if not attempted
	Hint     string   // how to get the data
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "datasets: %s not found; searched:", e.Dataset)
	for _, s := range e.Searched {
		b.WriteString("\n\t")
		b.WriteString(s)
	}
	if e.Download != nil {
		fmt.Fprintf(&b, "\n\tdownload: %v", e.Download)
	}
	if e.Hint != "" {
		b.WriteString("\n")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap lets errors.Is match both ErrNotFound and whatever made the
// download fail (a context deadline, a DNS error, ...).
func (e *NotFoundError) Unwrap() []error {
	if e.Download != nil {
		return []error{ErrNotFound, e.Download}
	}
	return []error{ErrNotFound}
}
