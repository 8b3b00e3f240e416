// Package readme holds the test that keeps the README's table of examples
// true: every flag each example defines is listed, nothing it does not
// define is, and the last line the table names is one the example prints.
package readme
