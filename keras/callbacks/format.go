package callbacks

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format fills a template written with Python's str.format syntax, as
// Keras formats ModelCheckpoint's filepath: "{name}" or "{name:spec}"
// with the format specification mini-language
// ([[fill]align][sign][#][0][width][,|_][.precision][type]), "{{" and "}}"
// for braces, and the conversions "!s" and "!r". Values are ints, floats
// or strings, formatted as Python formats int, float and str: "{epoch:02d}"
// gives "05", "{val_loss:.2f}" gives "0.12", "{loss}" gives Python's
// str(float), such as "0.1" or "1e-05". A field without a value is an error
// naming the fields there are.
func Format(template string, values map[string]any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(template); {
		c := template[i]
		switch {
		case c == '{' && i+1 < len(template) && template[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(template) && template[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '}':
			return "", fmt.Errorf("single '}' encountered in format string %q", template)
		case c == '{':
			end := strings.IndexByte(template[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("single '{' encountered in format string %q", template)
			}
			field := template[i+1 : i+end]
			if strings.ContainsRune(field, '{') {
				return "", fmt.Errorf("nested fields are not supported: %q", template)
			}
			s, err := formatField(field, values)
			if err != nil {
				return "", fmt.Errorf("format string %q: %w", template, err)
			}
			b.WriteString(s)
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func formatField(field string, values map[string]any) (string, error) {
	name, spec, _ := strings.Cut(field, ":")
	name, conv, hasConv := strings.Cut(name, "!")
	if name == "" || strings.Trim(name, "0123456789") == "" {
		return "", fmt.Errorf("positional field {%s} is not supported: name the value", field)
	}
	if strings.ContainsAny(name, ".[") {
		return "", fmt.Errorf("field {%s}: attribute and index access are not supported", field)
	}
	v, ok := values[name]
	if !ok {
		names := make([]string, 0, len(values))
		for k := range values {
			names = append(names, k)
		}
		slices.Sort(names)
		return "", fmt.Errorf("no value for field %q (the values are %s)", name, strings.Join(names, ", "))
	}
	if hasConv {
		switch conv {
		case "s":
			v = pyStr(v)
		case "r", "a":
			v = pyRepr(v)
		default:
			return "", fmt.Errorf("unknown conversion specifier %q", conv)
		}
	}
	sp, err := parseSpec(spec)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case int:
		return formatInt(int64(x), sp)
	case int64:
		return formatInt(x, sp)
	case int32:
		return formatInt(int64(x), sp)
	case float64:
		return formatFloat(x, sp)
	case float32:
		return formatFloat(float64(x), sp)
	case string:
		return formatString(x, sp)
	}
	return "", fmt.Errorf("field %q: cannot format a %T", name, v)
}

// pyStr is Python's str() of a value.
func pyStr(v any) string {
	switch x := v.(type) {
	case float64:
		return pyFloatRepr(x)
	case float32:
		return pyFloatRepr(float64(x))
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// pyRepr is Python's repr() of a value.
func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	return pyStr(v)
}

// pyFloatRepr is Python's repr(float): the shortest digits that read back
// as f, in fixed notation for exponents in [-4, 16), else scientific.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

type formatSpec struct {
	fill      rune
	fillSet   bool
	align     byte // 0 (default), '<', '>', '^' or '='
	sign      byte // 0, '+', '-' or ' '
	alt       bool
	zero      bool
	width     int
	grouping  byte // 0, ',' or '_'
	precision int  // -1: none
	typ       byte // 0: none
}

func parseSpec(s string) (formatSpec, error) {
	sp := formatSpec{fill: ' ', precision: -1}
	isAlign := func(r rune) bool { return r == '<' || r == '>' || r == '^' || r == '=' }
	r := []rune(s)
	i := 0
	if len(r) >= 2 && isAlign(r[1]) {
		sp.fill, sp.fillSet, sp.align = r[0], true, byte(r[1])
		i = 2
	} else if len(r) >= 1 && isAlign(r[0]) {
		sp.align = byte(r[0])
		i = 1
	}
	if i < len(r) && (r[i] == '+' || r[i] == '-' || r[i] == ' ') {
		sp.sign = byte(r[i])
		i++
	}
	if i < len(r) && r[i] == '#' {
		sp.alt = true
		i++
	}
	if i < len(r) && r[i] == '0' {
		// Zero padding, sign-aware for numbers (see numeric).
		if !sp.fillSet {
			sp.fill = '0'
		}
		sp.zero = true
		i++
	}
	start := i
	for i < len(r) && r[i] >= '0' && r[i] <= '9' {
		i++
	}
	if i > start {
		sp.width, _ = strconv.Atoi(string(r[start:i]))
	}
	if i < len(r) && (r[i] == ',' || r[i] == '_') {
		sp.grouping = byte(r[i])
		i++
	}
	if i < len(r) && r[i] == '.' {
		i++
		start = i
		for i < len(r) && r[i] >= '0' && r[i] <= '9' {
			i++
		}
		if i == start {
			return sp, fmt.Errorf("format specifier %q is missing the precision", s)
		}
		sp.precision, _ = strconv.Atoi(string(r[start:i]))
	}
	if i < len(r) {
		if r[i] > 127 {
			return sp, fmt.Errorf("invalid format specifier %q", s)
		}
		sp.typ = byte(r[i])
		i++
	}
	if i != len(r) {
		return sp, fmt.Errorf("invalid format specifier %q", s)
	}
	return sp, nil
}

// pad lays out prefix (sign, base prefix) and body in the field width.
func pad(prefix, body string, sp formatSpec, defaultAlign byte) string {
	n := sp.width - utf8.RuneCountInString(prefix) - utf8.RuneCountInString(body)
	if n <= 0 {
		return prefix + body
	}
	fill := func(k int) string { return strings.Repeat(string(sp.fill), k) }
	align := sp.align
	if align == 0 {
		align = defaultAlign
	}
	switch align {
	case '<':
		return prefix + body + fill(n)
	case '^':
		return fill(n/2) + prefix + body + fill(n-n/2)
	case '=':
		return prefix + fill(n) + body
	}
	return fill(n) + prefix + body
}

func signOf(neg bool, sp formatSpec) string {
	switch {
	case neg:
		return "-"
	case sp.sign == '+':
		return "+"
	case sp.sign == ' ':
		return " "
	}
	return ""
}

// group inserts sep every size digits from the right of digits.
func group(digits string, sep byte, size int) string {
	if sep == 0 || len(digits) <= size {
		return digits
	}
	var b strings.Builder
	first := len(digits) % size
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += size {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+size])
	}
	return b.String()
}

// numeric applies the zero flag's default alignment for numbers: after
// the sign.
func (sp formatSpec) numeric() formatSpec {
	if sp.zero && sp.align == 0 {
		sp.align = '='
	}
	return sp
}

func formatInt(n int64, sp formatSpec) (string, error) {
	sp = sp.numeric()
	switch sp.typ {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		return formatFloat(float64(n), sp)
	}
	if sp.precision >= 0 {
		return "", fmt.Errorf("precision not allowed in integer format specifier")
	}
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	var digits, prefix string
	size := 3
	switch sp.typ {
	case 0, 'd', 'n':
		digits = strconv.FormatUint(u, 10)
	case 'b':
		digits, prefix, size = strconv.FormatUint(u, 2), "0b", 4
	case 'o':
		digits, prefix, size = strconv.FormatUint(u, 8), "0o", 4
	case 'x':
		digits, prefix, size = strconv.FormatUint(u, 16), "0x", 4
	case 'X':
		digits, prefix, size = strings.ToUpper(strconv.FormatUint(u, 16)), "0X", 4
	case 'c':
		if neg || u > utf8.MaxRune {
			return "", fmt.Errorf("%%c arg not in range")
		}
		return pad("", string(rune(u)), sp, '<'), nil
	default:
		return "", fmt.Errorf("unknown format code '%c' for object of type 'int'", sp.typ)
	}
	if !sp.alt {
		prefix = ""
	}
	return pad(signOf(neg, sp)+prefix, group(digits, sp.grouping, size), sp, '>'), nil
}

func formatFloat(f float64, sp formatSpec) (string, error) {
	sp = sp.numeric()
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	prec := sp.precision
	if prec < 0 {
		prec = 6
	}
	var body string
	special := math.IsNaN(f) || math.IsInf(f, 0)
	switch sp.typ {
	case 'f', 'F', '%':
		if sp.typ == '%' {
			a *= 100
		}
		body = strconv.FormatFloat(a, 'f', prec, 64)
		if sp.alt && prec == 0 {
			body += "."
		}
	case 'e', 'E':
		body = strconv.FormatFloat(a, 'e', prec, 64)
	case 'g', 'G':
		body = pyGeneral(a, prec, sp.alt, false)
	case 0:
		if sp.precision < 0 {
			body = pyFloatRepr(a)
		} else {
			body = pyGeneral(a, sp.precision, sp.alt, true)
		}
	default:
		return "", fmt.Errorf("unknown format code '%c' for object of type 'float'", sp.typ)
	}
	if special {
		body = "inf"
		if math.IsNaN(f) {
			body = "nan"
		}
	} else if sp.grouping != 0 {
		end := strings.IndexAny(body, ".e")
		if end < 0 {
			end = len(body)
		}
		if !strings.ContainsRune(body[:end], 'e') {
			body = group(body[:end], sp.grouping, 3) + body[end:]
		}
	}
	switch sp.typ {
	case 'F', 'E', 'G':
		body = strings.ToUpper(body)
	case '%':
		body += "%"
	}
	return pad(signOf(neg, sp), body, sp, '>'), nil
}

// pyGeneral is Python's "g" presentation of a >= 0 with p significant
// digits; none is the presentation without a type, which keeps a digit
// after the point and switches to scientific notation one exponent
// earlier.
func pyGeneral(a float64, p int, alt, none bool) string {
	if p == 0 {
		p = 1
	}
	exp := 0
	if a != 0 {
		e := strconv.FormatFloat(a, 'e', p-1, 64)
		exp, _ = strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	}
	limit := p
	if none {
		limit = p - 1
	}
	if exp < -4 || exp >= limit {
		s := strconv.FormatFloat(a, 'e', p-1, 64)
		if !alt {
			mant, ex, _ := strings.Cut(s, "e")
			if strings.ContainsRune(mant, '.') {
				mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
			}
			s = mant + "e" + ex
		}
		return s
	}
	s := strconv.FormatFloat(a, 'f', p-1-exp, 64)
	if !alt && strings.ContainsRune(s, '.') {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if none && !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

func formatString(s string, sp formatSpec) (string, error) {
	if sp.typ != 0 && sp.typ != 's' {
		return "", fmt.Errorf("unknown format code '%c' for object of type 'str'", sp.typ)
	}
	if sp.sign != 0 {
		return "", fmt.Errorf("sign not allowed in string format specifier")
	}
	if sp.align == '=' {
		return "", fmt.Errorf("'=' alignment not allowed in string format specifier")
	}
	if sp.grouping != 0 {
		return "", fmt.Errorf("cannot specify '%c' with 's'", sp.grouping)
	}
	if sp.precision >= 0 && utf8.RuneCountInString(s) > sp.precision {
		s = string([]rune(s)[:sp.precision])
	}
	return pad("", s, sp, '<'), nil
}
