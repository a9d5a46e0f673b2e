/** Marker syntax and JSDoc extraction (`src/parse/typescript/markers.ts`, `marker-syntax.ts`). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from 'kubegen/internal/model/index.js';
import { parseDocComment, parseMarker } from 'kubegen/internal/parse/typescript/markers.js';
import { parseAny, splitTopLevel } from 'kubegen/internal/parse/typescript/marker-syntax.js';

const LOC = { file: 'f.ts', line: 3, column: 5 };

describe('marker syntax', () => {
  it('reads flags, single values and named arguments with controller-gen spelling', () => {
    assert.equal(parseMarker('kubebuilder:subresource:status', LOC).value, true);
    assert.equal(parseMarker('kubebuilder:validation:Maximum=10', LOC).value, 10);
    assert.equal(parseMarker('kubebuilder:validation:Minimum=-0.5', LOC).value, -0.5);
    assert.equal(parseMarker('kubebuilder:validation:Pattern=`^a,b;c$`', LOC).value, '^a,b;c$');
    assert.equal(parseMarker('kubebuilder:validation:Pattern="^a\\\\d$"', LOC).value, '^a\\d$');
    assert.deepEqual(parseMarker('kubebuilder:validation:Enum=a;"b;c";3', LOC).value, ['a', 'b;c', 3]);
    assert.deepEqual(parseMarker('kubebuilder:default={"a":[1,2]}', LOC).value, { a: [1, 2] });
    assert.deepEqual(parseMarker('kubebuilder:default={a,b}', LOC).value, ['a', 'b']);
    const cel = parseMarker('kubebuilder:validation:XValidation:rule="self.a, self.b",message="x, y",optionalOldSelf=true', LOC);
    assert.deepEqual(cel.args, { rule: 'self.a, self.b', message: 'x, y', optionalOldSelf: true });
    const res = parseMarker('kubebuilder:resource:scope=Cluster,shortName=a;b,categories={x,y}', LOC);
    assert.deepEqual(res.args, { scope: 'Cluster', shortName: ['a', 'b'], categories: ['x', 'y'] });
    assert.deepEqual(parseMarker('kubebuilder:deprecatedversion', LOC).args, {});
  });

  it('rejects unknown and malformed markers at their location', () => {
    const cases: [string, RegExp][] = [
      ['kubebuilder:validation:Maximun=3', /^f\.ts:3:5: unknown marker \+kubebuilder:validation:Maximun$/],
      ['kubebuilder:validation:Maximum=ten', /^f\.ts:3:5: malformed marker .*expected a number, found "ten"$/],
      ['kubebuilder:validation:MaxLength=1.5', /expected an integer/],
      ['kubebuilder:subresource:status=true', /takes no value/],
      ['kubebuilder:printcolumn:name=A,type=string', /missing argument JSONPath/],
      ['kubebuilder:resource:scop=Cluster', /unknown argument scop/],
      ['kubebuilder:validation:Pattern="abc', /unterminated/],
      ['kubebuilder:validation:Maximum', /needs a value/],
    ];
    for (const [text, re] of cases) {
      assert.throws(() => parseMarker(text, LOC), (e: unknown) => e instanceof InputError && re.test(e.message), text);
    }
  });

  it('splits at top level only and parses loose values', () => {
    assert.deepEqual(splitTopLevel('a,"b,c",{d,e},`f,g`', ','), ['a', '"b,c"', '{d,e}', '`f,g`']);
    assert.deepEqual(parseAny('{a: 1, b: x}'), { a: 1, b: 'x' });
    assert.equal(parseAny('true'), true);
    assert.equal(parseAny('hello world'), 'hello world');
  });
});

describe('JSDoc comments', () => {
  it('separates description from markers, with 1-based marker positions, and undoes the emitter escapes', () => {
    const text = '/**\n   * First line.\n   *\n   * \\@not-a-tag and *\\/ kept\n   * +kubebuilder:validation:Minimum=1\n   *   +optional\n   * @deprecated gone\n   */';
    const d = parseDocComment(text, 'x.ts', 10, 3);
    assert.equal(d.description, 'First line.\n\n@not-a-tag and */ kept');
    assert.deepEqual(d.markers.map((m) => [m.name, m.loc.line, m.loc.column]), [
      ['kubebuilder:validation:Minimum', 14, 6],
      ['optional', 15, 8],
    ]);
    const one = parseDocComment('/** +nullable */', 'x.ts', 2, 5);
    assert.deepEqual(one.markers.map((m) => [m.name, m.loc.line, m.loc.column]), [['nullable', 2, 9]]);
    assert.equal(one.description, '');
  });
});
