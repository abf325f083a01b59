package protocheck

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// A small reader of the TypeScript declarations in protocol.ts: exported
// interfaces and type aliases, the Methods table, and the typed
// request/notification constants. It reads type expressions only (object
// literals, unions, intersections, arrays, references, literals), which is
// all a declaration holds; function bodies are never lexed.

// tsType is a type expression.
type tsType struct {
	kind   string             // "object", "ref", "union", "inter", "array", "lit", "other"
	fields map[string]*tsType // object: members by name
	name   string             // ref: the name; lit: the literal's value
	elems  []*tsType          // union, inter: members; array: the element
}

// tsFile is what protocol.ts declares.
type tsFile struct {
	decls   map[string]*tsType // interfaces and type aliases by name
	methods map[string]string  // Methods: key -> method name
	// calls: the typed constants, by method name: request<P, R> or
	// notification<P>.
	calls map[string]tsCall
	// unknown: constants naming a Methods key that Methods lacks.
	unknown []string
}

type tsCall struct {
	notification bool
	params       *tsType
	result       *tsType // nil for a notification
	constName    string
}

var (
	declStart   = regexp.MustCompile(`(?m)^export (interface|type) (\w+)(?:<[^>]*>)?\s*(extends\s+[\w\s,]+)?\s*(=|\{)`)
	methodsDecl = regexp.MustCompile(`(?s)export const Methods = \{(.*?)\} as const;`)
	methodEntry = regexp.MustCompile(`(\w+):\s*'([^']*)'`)
	callDecl    = regexp.MustCompile(`(?m)^export const (\w+) = (request|notification)<(.*)>\(Methods\.(\w+)\);`)
)

// parseTS reads protocol.ts's declarations.
func parseTS(src string) (*tsFile, error) {
	f := &tsFile{decls: map[string]*tsType{}, methods: map[string]string{}, calls: map[string]tsCall{}}
	for _, m := range declStart.FindAllStringSubmatchIndex(src, -1) {
		kind, name := src[m[2]:m[3]], src[m[4]:m[5]]
		var bases []string
		if m[6] >= 0 {
			for _, b := range strings.Split(strings.TrimPrefix(src[m[6]:m[7]], "extends"), ",") {
				bases = append(bases, strings.TrimSpace(b))
			}
		}
		p := &tsParser{src: src, pos: m[8]}
		var t *tsType
		var err error
		if kind == "interface" {
			t, err = p.object()
		} else {
			p.pos = m[9] // after "="
			t, err = p.union()
			if err == nil {
				err = p.expect(";")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("protocol.ts: %s %s: %w", kind, name, err)
		}
		if len(bases) > 0 {
			elems := []*tsType{t}
			for _, b := range bases {
				elems = append(elems, &tsType{kind: "ref", name: b})
			}
			t = &tsType{kind: "inter", elems: elems}
		}
		f.decls[name] = t
	}
	mm := methodsDecl.FindStringSubmatch(src)
	if mm == nil {
		return nil, fmt.Errorf("protocol.ts: no `export const Methods = {...} as const;`")
	}
	for _, e := range methodEntry.FindAllStringSubmatch(mm[1], -1) {
		f.methods[e[1]] = e[2]
	}
	for _, m := range callDecl.FindAllStringSubmatch(src, -1) {
		method, ok := f.methods[m[4]]
		if !ok {
			f.unknown = append(f.unknown, fmt.Sprintf("%s uses Methods.%s, which Methods lacks", m[1], m[4]))
			continue
		}
		p := &tsParser{src: m[3]}
		args, err := p.args()
		if err != nil {
			return nil, fmt.Errorf("protocol.ts: %s's type arguments: %w", m[1], err)
		}
		c := tsCall{notification: m[2] == "notification", params: args[0], constName: m[1]}
		if !c.notification {
			if len(args) != 2 {
				return nil, fmt.Errorf("protocol.ts: %s: request<P, R> needs two type arguments", m[1])
			}
			c.result = args[1]
		}
		f.calls[method] = c
	}
	return f, nil
}

// tsParser parses type expressions of src from pos.
type tsParser struct {
	src string
	pos int
}

// next returns the next token: an identifier or number, a string
// literal (quotes kept), or one punctuation character. Comments and
// spaces are skipped. "" at the end.
func (p *tsParser) peek() string {
	save := p.pos
	t := p.next()
	p.pos = save
	return t
}

func (p *tsParser) next() string {
	s := p.src
	for p.pos < len(s) {
		switch {
		case unicode.IsSpace(rune(s[p.pos])):
			p.pos++
		case strings.HasPrefix(s[p.pos:], "//"):
			if i := strings.IndexByte(s[p.pos:], '\n'); i >= 0 {
				p.pos += i
			} else {
				p.pos = len(s)
			}
		case strings.HasPrefix(s[p.pos:], "/*"):
			if i := strings.Index(s[p.pos+2:], "*/"); i >= 0 {
				p.pos += i + 4
			} else {
				p.pos = len(s)
			}
		default:
			start := p.pos
			c := s[p.pos]
			switch {
			case c == '\'' || c == '"':
				p.pos++
				for p.pos < len(s) && s[p.pos] != c {
					if s[p.pos] == '\\' {
						p.pos++
					}
					p.pos++
				}
				p.pos++
			case c == '_' || c == '$' || c == '-' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
				p.pos++
				for p.pos < len(s) && (s[p.pos] == '_' || s[p.pos] == '$' || s[p.pos] == '.' || unicode.IsLetter(rune(s[p.pos])) || unicode.IsDigit(rune(s[p.pos]))) {
					p.pos++
				}
			default:
				p.pos++
			}
			return s[start:p.pos]
		}
	}
	return ""
}

func (p *tsParser) expect(tok string) error {
	if got := p.next(); got != tok {
		return fmt.Errorf("at offset %d: want %q, got %q", p.pos, tok, got)
	}
	return nil
}

// object parses { members }.
func (p *tsParser) object() (*tsType, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	t := &tsType{kind: "object", fields: map[string]*tsType{}}
	for {
		tok := p.next()
		switch tok {
		case "}":
			return t, nil
		case ";", ",":
			continue
		case "":
			return nil, fmt.Errorf("unterminated object type")
		case "readonly":
			if q := p.peek(); q == ":" || q == "?" {
				break // a member named readonly
			}
			tok = p.next()
		case "[":
			// An index signature: [key: string]: T.
			for tok != "]" && tok != "" {
				tok = p.next()
			}
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			if _, err := p.union(); err != nil {
				return nil, err
			}
			continue
		}
		name := strings.Trim(tok, `'"`)
		sep := p.next()
		if sep == "?" {
			sep = p.next()
		}
		if sep != ":" {
			return nil, fmt.Errorf("member %s: want ':', got %q", name, sep)
		}
		ft, err := p.union()
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", name, err)
		}
		t.fields[name] = ft
	}
}

func (p *tsParser) union() (*tsType, error) {
	if p.peek() == "|" {
		p.next()
	}
	var elems []*tsType
	for {
		t, err := p.inter()
		if err != nil {
			return nil, err
		}
		elems = append(elems, t)
		if p.peek() != "|" {
			break
		}
		p.next()
	}
	if len(elems) == 1 {
		return elems[0], nil
	}
	return &tsType{kind: "union", elems: elems}, nil
}

func (p *tsParser) inter() (*tsType, error) {
	var elems []*tsType
	for {
		t, err := p.postfix()
		if err != nil {
			return nil, err
		}
		elems = append(elems, t)
		if p.peek() != "&" {
			break
		}
		p.next()
	}
	if len(elems) == 1 {
		return elems[0], nil
	}
	return &tsType{kind: "inter", elems: elems}, nil
}

func (p *tsParser) postfix() (*tsType, error) {
	t, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "[" {
		p.next()
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		t = &tsType{kind: "array", elems: []*tsType{t}}
	}
	return t, nil
}

func (p *tsParser) primary() (*tsType, error) {
	switch tok := p.peek(); {
	case tok == "{":
		return p.object()
	case tok == "(":
		p.next()
		t, err := p.union()
		if err != nil {
			return nil, err
		}
		return t, p.expect(")")
	case tok == "[":
		// A tuple: [A, B].
		p.next()
		elems, err := p.argList("]")
		if err != nil {
			return nil, err
		}
		return &tsType{kind: "other", elems: elems}, nil
	case tok == "":
		return nil, fmt.Errorf("unexpected end of the type")
	case tok[0] == '\'' || tok[0] == '"':
		p.next()
		return &tsType{kind: "lit", name: tok[1 : len(tok)-1]}, nil
	case tok[0] == '-' || unicode.IsDigit(rune(tok[0])):
		p.next()
		return &tsType{kind: "lit", name: tok}, nil
	case tok[0] == '_' || tok[0] == '$' || unicode.IsLetter(rune(tok[0])):
		p.next()
		t := &tsType{kind: "ref", name: tok}
		if p.peek() == "<" {
			p.next()
			args, err := p.argList(">")
			if err != nil {
				return nil, err
			}
			t.elems = args
		}
		return t, nil
	default:
		return nil, fmt.Errorf("at offset %d: unexpected %q in a type", p.pos, tok)
	}
}

// args parses a type argument list up to the end of src.
func (p *tsParser) args() ([]*tsType, error) {
	return p.argList("")
}

func (p *tsParser) argList(end string) ([]*tsType, error) {
	var out []*tsType
	for {
		t, err := p.union()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		switch tok := p.next(); tok {
		case ",":
		case end:
			return out, nil
		default:
			return nil, fmt.Errorf("at offset %d: want ',' or %q, got %q", p.pos, end, tok)
		}
	}
}
