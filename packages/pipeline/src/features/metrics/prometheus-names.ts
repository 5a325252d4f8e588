/**
 * OpenTelemetry names to Prometheus names, as OpenTelemetry's "Prometheus and OpenMetrics
 * Compatibility" specification says (metric names: illegal characters to `_`, the unit as a
 * suffix, `_total` for monotonic sums; label names: illegal characters to `_`), and the escaping
 * of the Prometheus text exposition format 0.0.4.
 */

/** The instrument kinds as Prometheus types them: an up-down counter is a gauge. */
export type PrometheusType = 'counter' | 'gauge' | 'histogram';

/** UCUM units to Prometheus base-unit words (the compatibility specification's table). */
const UNITS: Readonly<Record<string, string>> = {
  d: 'days',
  h: 'hours',
  min: 'minutes',
  s: 'seconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
  By: 'bytes',
  KiBy: 'kibibytes',
  MiBy: 'mebibytes',
  GiBy: 'gibibytes',
  TiBy: 'tibibytes',
  KBy: 'kilobytes',
  MBy: 'megabytes',
  GBy: 'gigabytes',
  TBy: 'terabytes',
  m: 'meters',
  V: 'volts',
  A: 'amperes',
  J: 'joules',
  W: 'watts',
  g: 'grams',
  Cel: 'celsius',
  Hz: 'hertz',
  '%': 'percent',
};

/** The denominator of a rate unit (`By/s` is `bytes_per_second`). */
const PER_UNITS: Readonly<Record<string, string>> = {
  s: 'second',
  m: 'minute',
  h: 'hour',
  d: 'day',
  w: 'week',
  mo: 'month',
  y: 'year',
};

/** Characters outside the legal set of a metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
const ILLEGAL_IN_NAME = /[^a-zA-Z0-9_:]+/g;
/** Characters outside the legal set of a label name (`[a-zA-Z_][a-zA-Z0-9_]*`). */
const ILLEGAL_IN_LABEL = /[^a-zA-Z0-9_]/g;

/** The word(s) a UCUM unit adds to a name: annotations (`{request}`) are dropped; `''` for none. */
export function unitSuffix(unit: string | undefined, type: PrometheusType): string {
  if (unit === undefined) return '';
  const bare = unit.replace(/\{[^}]*\}/g, '').trim();
  if (bare === '') return '';
  if (bare === '1') return type === 'gauge' ? 'ratio' : '';
  const slash = bare.indexOf('/');
  if (slash < 0) return sanitize(UNITS[bare] ?? bare);
  const top = bare.slice(0, slash);
  const bottom = bare.slice(slash + 1);
  const words = [top === '' ? '' : (UNITS[top] ?? top), 'per', PER_UNITS[bottom] ?? UNITS[bottom] ?? bottom];
  return sanitize(words.filter((w) => w !== '').join('_'));
}

function sanitize(s: string): string {
  return s.replace(ILLEGAL_IN_NAME, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
}

/**
 * The Prometheus metric name of an instrument: `http.server.request.duration` with unit `s` is
 * `http_server_request_duration_seconds`; a counter `jobs.done` is `jobs_done_total`.
 */
export function prometheusName(name: string, unit: string | undefined, type: PrometheusType): string {
  let base = name.replace(ILLEGAL_IN_NAME, '_').replace(/_+/g, '_');
  if (/^[0-9]/.test(base)) base = `_${base}`;
  if (type === 'counter' && base.endsWith('_total')) base = base.slice(0, -'_total'.length);
  const suffix = unitSuffix(unit, type);
  if (suffix !== '' && !base.endsWith(`_${suffix}`)) base = `${base}_${suffix}`;
  return type === 'counter' ? `${base}_total` : base;
}

/**
 * The Prometheus label name of an attribute: `http.request.method` is `http_request_method`
 * (illegal characters to `_`, the compatibility specification's rule). A name Prometheus would not
 * take as the attribute's own gets the `key_` prefix that specification gives a name starting with
 * a digit (`2xx` is `key_2xx`): an empty name (`key_`), a name starting with `__` (reserved for
 * Prometheus' internal use, `__name__` among them: Prometheus data model, "Metric names and
 * labels"), and `le` on a histogram, where it names the bucket bound (`key_le`, so a bucket line
 * never carries `le` twice, which a scraper refuses).
 */
export function labelName(attribute: string, type?: PrometheusType): string {
  const name = attribute.replace(ILLEGAL_IN_LABEL, '_');
  if (name === '' || /^[0-9]/.test(name) || name.startsWith('__') || (name === 'le' && type === 'histogram')) return `key_${name}`;
  return name;
}

/** A label value inside its double quotes: backslash, double quote and line feed escaped (format 0.0.4). */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

/** `# HELP` text: backslash and line feed escaped (format 0.0.4; double quotes stay). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value or bucket bound as Go's `ParseFloat` reads it (`+Inf`, `-Inf`, `NaN`). */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}
