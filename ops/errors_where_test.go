package ops

import (
	"errors"
	"io"
	"testing"
)

func TestWhere(t *testing.T) {
	cause := &Error{Op: `layer "dense" (Dense)`, Msg: "input shape (32, 10) does not match the kernel (784, 64)"}
	err := Where("distribute: Run", Where("keras: Function", cause))
	want := `layer "dense" (Dense): input shape (32, 10) does not match the kernel (784, 64) (in distribute: Run > keras: Function)`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e != cause {
		t.Error("the cause does not unwrap")
	}
	if got := Where("keras: Fit", io.EOF).Error(); got != "keras: Fit: EOF" {
		t.Errorf("other errors: %q", got)
	}
	if !errors.Is(Where("a", Where("b", io.EOF)), io.EOF) {
		t.Error("other errors do not unwrap")
	}
	if Where("a", nil) != nil {
		t.Error("nil is not nil")
	}
}
