/**
 * The Go declarations reader the built-in API front end uses (`parse/go`): type, const and string-map declarations
 * with their doc comments and markers; function bodies and other code skipped; errors at file:line:column.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoFile } from 'kubegen/internal/parse/go/go-decls.js';
import { GoSyntaxError, tokenizeGo } from 'kubegen/internal/parse/go/go-lexer.js';

const SRC = `// Package v1 is an example.
package v1

import (
\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
\t"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:prerelease-lifecycle-gen:introduced=1.21

// Widget is a widget.
// +optional-looking text is not a marker here
type Widget struct {
\tmetav1.TypeMeta \`json:",inline"\`
\t// Standard metadata.
\t// +optional
\tmetav1.ObjectMeta \`json:"metadata,omitempty"\`

\tSpec WidgetSpec \`json:"spec"\` // trailing comments are not docs
\t// Ports, by number.
\t// +listType=map
\t// +listMapKey=port
\tPorts []*Port \`json:"ports,omitempty"\`
\tA, B int32 \`json:"-"\`
\tLabels map[string][]string \`json:"labels"\`
\tFn func(a, b string) (x int, err error) \`json:"-"\`
\tMax intstr.IntOrString \`json:"max"\`
}

// Phase is a phase.
// +enum
type Phase string

const (
\t// Running means running.
\tPhaseRunning Phase = "Running"
\tPhaseDone   Phase = "Done" + ""
\tOther             = PhaseRunning
)

const Single = "one"

type Alias = metav1.Time

var map_Widget = map[string]string{
\t"":     "Widget is a widget.",
\t"spec": "Spec is " +
\t\t"joined.",
}

func (w *Widget) Method() map[string]struct{ X int } {
\tif true { return nil }
\treturn map[string]struct{ X int }{"a": {1}}
}

type Port struct{ Port int32 \`json:"port"\`; Protocol string \`json:"protocol,omitempty"\` }
`;

describe('parseGoFile', () => {
  const f = parseGoFile(SRC, 'types.go');

  it('reads the package, its doc and the imports by local name', () => {
    assert.equal(f.packageName, 'v1');
    assert.deepEqual(f.packageDoc, [' Package v1 is an example.']);
    assert.equal(f.imports.get('metav1'), 'k8s.io/apimachinery/pkg/apis/meta/v1');
    assert.equal(f.imports.get('intstr'), 'k8s.io/apimachinery/pkg/util/intstr');
  });

  it('reads a struct: embedded and named fields, tags, field comments (not trailing ones), every type form', () => {
    const w = f.types.find((t) => t.name === 'Widget')!;
    assert.equal(w.type.kind, 'struct');
    const fields = w.type.kind === 'struct' ? w.type.fields : [];
    assert.deepEqual(fields.map((x) => x.name ?? `<${x.type.kind === 'name' ? x.type.name : ''}>`), ['<TypeMeta>', '<ObjectMeta>', 'Spec', 'Ports', 'A', 'B', 'Labels', 'Fn', 'Max']);
    assert.equal(fields[0]!.tag, 'json:",inline"');
    assert.deepEqual(fields[1]!.comments, [' Standard metadata.', ' +optional']);
    assert.deepEqual(fields[2]!.comments, []);
    assert.deepEqual(fields[3]!.comments, [' Ports, by number.', ' +listType=map', ' +listMapKey=port']);
    assert.deepEqual(fields[3]!.type, { kind: 'slice', elem: { kind: 'pointer', elem: { kind: 'name', name: 'Port' } } });
    assert.deepEqual(fields[6]!.type, { kind: 'map', key: { kind: 'name', name: 'string' }, value: { kind: 'slice', elem: { kind: 'name', name: 'string' } } });
    assert.deepEqual(fields[7]!.type, { kind: 'opaque', what: 'func' });
    assert.deepEqual(fields[8]!.type, { kind: 'name', pkg: 'intstr', name: 'IntOrString' });
    assert.equal(fields[8]!.line, 28);
  });

  it('separates a type\'s doc from the marker group above it', () => {
    const w = f.types.find((t) => t.name === 'Widget')!;
    assert.deepEqual(w.doc, [' Widget is a widget.', ' +optional-looking text is not a marker here']);
    assert.deepEqual(w.comments.slice(0, 2), [' +genclient', ' +k8s:prerelease-lifecycle-gen:introduced=1.21']);
  });

  it('reads typed constants (single strings and references), repeats a spec\'s type, marks aliases', () => {
    const byName = new Map(f.consts.map((c) => [c.name, c]));
    assert.equal(byName.get('PhaseRunning')!.value, 'Running');
    assert.deepEqual(byName.get('PhaseRunning')!.doc, [' Running means running.']);
    assert.equal(byName.get('PhaseDone')!.value, undefined, 'an expression is not a single literal');
    assert.equal(byName.get('Other')!.valueName, 'PhaseRunning');
    assert.equal(byName.get('Single')!.value, 'one');
    assert.deepEqual(f.types.find((t) => t.name === 'Phase')!.doc, [' Phase is a phase.', ' +enum']);
    assert.equal(f.types.find((t) => t.name === 'Alias')!.alias, true);
  });

  it('reads map[string]string variables with joined strings, and skips function bodies', () => {
    assert.deepEqual(f.stringMaps, [{ name: 'map_Widget', entries: [['', 'Widget is a widget.'], ['spec', 'Spec is joined.']] }]);
    assert.equal(f.types.find((t) => t.name === 'Port')!.type.kind, 'struct', 'declarations after a function are read');
  });

  it('decodes string escapes and reports errors at file:line:column', () => {
    assert.equal(tokenizeGo('x := "a\\tb\\u00e9\\x41"', 'f.go').find((t) => t.kind === 'string')!.text, 'a\tbéA');
    assert.throws(() => parseGoFile('package v1\ntype T struct {\n\tA int `json:"a"\n}\n', 'bad.go'), (e: unknown) => e instanceof GoSyntaxError && /^bad\.go:3:\d+: raw string literal not terminated$/.test(e.message));
    assert.throws(() => parseGoFile('package v1\ntype T struct { A @ }\n', 'bad.go'), { message: 'bad.go:2:19: unexpected character "@"' });
    assert.throws(() => parseGoFile('package v1\n+\n', 'bad.go'), { message: 'bad.go:2:1: unexpected "+" at the top level' });
  });
});
