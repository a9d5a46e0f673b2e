/**
 * YAML text that every common reader takes as the same data: YAML 1.2 parsers (the `yaml` package, kubectl's
 * sigs.k8s.io/yaml in its newer releases), YAML 1.1 ones (PyYAML, so Ansible, yamllint; go-yaml v2) and strict ones.
 *
 * The `yaml` package writes plain scalars where YAML 1.2 allows them. Two kinds of string need more:
 * - strings YAML 1.1 reads as something else (`on`, `yes`, `n`, `0o17`, `1_000`, `1:30`, `2001-12-14`): the
 *   package's `compat: 'yaml-1.1'` option quotes every string either schema would resolve to a non-string;
 * - strings with a TAB on one line: a plain scalar may hold a TAB in YAML 1.2, PyYAML refuses it ("found character
 *   '\t' that cannot start any token"), so they are written double-quoted (`"a\tb"`). Multi-line strings stay block
 *   literals (`|-`), where every reader takes a TAB as it is.
 * Escaping is the package's own (a double-quoted scalar), never done by hand here.
 */
import { Document, Scalar, visit } from 'yaml';
import type { ToStringOptions } from 'yaml';

/** `value` as one YAML document (no `---`), with the scalar styles above; `opts` are the package's output options. */
export function portableYaml(value: unknown, opts: ToStringOptions = {}): string {
  const doc = new Document(value, { compat: 'yaml-1.1', aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('\t') && !node.value.includes('\n')) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString(opts);
}
