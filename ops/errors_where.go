package ops

import (
	"errors"
	"fmt"
	"strings"
)

// Where adds to err, an error out of a traced step, where it surfaced
// ("distribute: Run", "keras: Fit: epoch 1, batch 0", a step's name). An
// error of the user's model ([Error]: a layer, loss or model naming the
// shapes it got) stays first and the call path follows, so the message
// reads what went wrong and where before how it got there:
//
//	layer "dense" (Dense): input shape (32, 10) does not match the kernel (784, 64) (in distribute: Run > keras: Function)
//
// Other errors are wrapped as fmt.Errorf("%s: %w", where, err). The result
// unwraps to err; nil stays nil.
func Where(where string, err error) error {
	if err == nil {
		return nil
	}
	var le *locatedError
	if errors.As(err, &le) && le == err {
		return &locatedError{cause: le.cause, path: append([]string{where}, le.path...)}
	}
	var oe *Error
	if errors.As(err, &oe) && oe == err {
		return &locatedError{cause: oe, path: []string{where}}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// locatedError is an [Error] and the path it surfaced through, outermost
// first.
type locatedError struct {
	cause *Error
	path  []string
}

func (e *locatedError) Error() string {
	return e.cause.Op + ": " + e.cause.Msg + " (in " + strings.Join(e.path, " > ") + ")"
}

func (e *locatedError) Unwrap() error { return e.cause }
