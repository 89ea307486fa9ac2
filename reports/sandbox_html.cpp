// The interactive sandbox page: the grid as JSON in a <script type="application/json">, controls, a table of
// numbers (each with its exact value in data-value) and two SVG charts drawn by a small inline script.
#include "reports/sandbox_html.h"

#include "reports/html.h"

namespace rooftop::reports {
namespace {

// The page's script. Everything it shows is read from the grid; the only arithmetic is the price scaling and
// unit conversion for display. Bad price input shows the CLI's own error text (cli/cli.cpp in_range).
constexpr const char* kScript = R"JS(
const G = JSON.parse(document.getElementById('grid').textContent);
const F = {};
G.fields.forEach((f, i) => { F[f] = i; });
const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
function fill(sel, items, label) {
  items.forEach((it, i) => { const o = document.createElement('option'); o.value = String(i); o.textContent = label(it); sel.appendChild(o); });
}
fill($('model'), G.models, (m) => m.name + ' (' + m.id + ')');
fill($('hw'), G.chips, (c) => c.name + ' (' + c.id + ')');
fill($('precision'), G.precisions, (p) => p);
fill($('tp'), G.tps, (t) => String(t));
$('context').max = String(G.contexts.length - 1);
$('batch').max = String(G.batches.length - 1);
const PRICE_RANGE = 'expected 0 to 1000000000';
function priceProblem(text) {
  const t = text.trim();
  if (t === '') return null;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return "--usd-per-hour: '" + text + "' is not a number; " + PRICE_RANGE;
  const v = Number(t);
  if (!isFinite(v) || v < 0 || v > 1e9) return '--usd-per-hour: ' + text + ' is out of range; ' + PRICE_RANGE;
  return null;
}
function sig3(v) {  // 3 significant figures; whole numbers from 1000 up
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  const s = Number(v).toPrecision(3);
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}
function show(id, value, text) {
  const e = $(id);
  e.dataset.value = value === null ? '' : String(value);
  e.textContent = text;
}
function cellAt(s) {
  return G.grid[s.model][s.hw][s.precision][s.tp][s.context];
}
function state() {
  return { model: +$('model').value, hw: +$('hw').value, precision: +$('precision').value, tp: +$('tp').value,
           context: +$('context').value, batch: +$('batch').value, price: $('price').value };
}
function svgEl(name, attrs, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, String(attrs[k]));
  if (text !== undefined) e.textContent = text;
  return e;
}
function drawMemory(p) {
  const svg = $('chart-memory-svg');
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const W = 640, x0 = 10, w = 600;
  svg.appendChild(svgEl('text', { x: x0, y: 14, 'font-size': 12 }, 'memory per device against capacity'));
  if (!p) return;
  const cap = p[F.capacity_bytes], total = p[F.total_bytes];
  const scale = w / Math.max(cap, total);
  const parts = [['weights', p[F.weights_bytes], '#3366aa'], ['KV', p[F.kv_bytes], '#dd8833'],
                 ['other', Math.max(0, total - p[F.weights_bytes] - p[F.kv_bytes]), '#999999']];
  let x = x0;
  for (const [name, bytes, color] of parts) {
    const bw = bytes * scale;
    svg.appendChild(svgEl('rect', { x: x, y: 24, width: Math.max(0, bw), height: 26, fill: color }));
    x += bw;
  }
  svg.appendChild(svgEl('line', { x1: x0 + cap * scale, x2: x0 + cap * scale, y1: 20, y2: 56, stroke: '#cc0000', 'stroke-width': 2 }));
  svg.appendChild(svgEl('text', { x: x0, y: 72, 'font-size': 11 },
    'weights ' + sig3(p[F.weights_bytes] / 1e9) + ' GB, KV ' + sig3(p[F.kv_bytes] / 1e9) + ' GB, total ' +
    sig3(total / 1e9) + ' GB; red line: usable ' + sig3(cap / 1e9) + ' GB'));
  svg.setAttribute('viewBox', '0 0 ' + W + ' 80');
}
function drawBatch(cell, s) {
  const svg = $('chart-batch-svg');
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.appendChild(svgEl('text', { x: 10, y: 14, 'font-size': 12 }, 'decode tok/s (all streams) against batch; filled: fits'));
  if (!cell || cell.error) return;
  const x0 = 50, y0 = 190, w = 560, h = 160, n = G.batches.length;
  const ymax = Math.max(...cell.map((p) => p[F.tokens_per_s])) || 1;
  const X = (i) => x0 + (n > 1 ? i / (n - 1) : 0) * w, Y = (v) => y0 - v / ymax * h;
  svg.appendChild(svgEl('line', { x1: x0, x2: x0 + w, y1: y0, y2: y0, stroke: '#444444' }));
  svg.appendChild(svgEl('polyline', { points: cell.map((p, i) => X(i) + ',' + Y(p[F.tokens_per_s])).join(' '), fill: 'none', stroke: '#3366aa', 'stroke-width': 2 }));
  cell.forEach((p, i) => {
    svg.appendChild(svgEl('circle', { cx: X(i), cy: Y(p[F.tokens_per_s]), r: i === s.batch ? 6 : 4,
                                      fill: p[F.fits] ? '#3366aa' : '#ffffff', stroke: i === s.batch ? '#cc0000' : '#3366aa', 'stroke-width': 2 }));
    svg.appendChild(svgEl('text', { x: X(i) - 8, y: y0 + 16, 'font-size': 10 }, String(G.batches[i])));
  });
  svg.appendChild(svgEl('text', { x: 4, y: Y(ymax) + 4, 'font-size': 10 }, sig3(ymax)));
}
function render() {
  const s = state();
  $('context-value').textContent = String(G.contexts[s.context]);
  $('batch-value').textContent = String(G.batches[s.batch]);
  const cell = cellAt(s);
  const ids = ['fits', 'total', 'capacity', 'weights', 'kv', 'max-batch', 'max-context', 'ttft', 'tpot', 'stream', 'total-tps', 'cost'];
  const problem = priceProblem(s.price);
  let msg = problem || (cell.error ? cell.error : '');
  $('error').textContent = msg;
  if (cell.error) {
    ids.forEach((id) => show('out-' + id, null, '—'));
    drawMemory(null);
    drawBatch(null, s);
    return;
  }
  const p = cell[s.batch];
  show('out-fits', p[F.fits] ? 1 : 0, p[F.fits] ? 'yes' : 'no');
  show('out-total', p[F.total_bytes], sig3(p[F.total_bytes] / 1e9) + ' GB');
  show('out-capacity', p[F.capacity_bytes], sig3(p[F.capacity_bytes] / 1e9) + ' GB');
  show('out-weights', p[F.weights_bytes], sig3(p[F.weights_bytes] / 1e9) + ' GB');
  show('out-kv', p[F.kv_bytes], sig3(p[F.kv_bytes] / 1e9) + ' GB');
  show('out-max-batch', p[F.max_batch], String(p[F.max_batch]));
  show('out-max-context', p[F.max_context], String(p[F.max_context]));
  show('out-ttft', p[F.ttft_s], sig3(p[F.ttft_s] * 1e3) + ' ms');
  show('out-tpot', p[F.tpot_s], sig3(p[F.tpot_s] * 1e3) + ' ms');
  show('out-stream', p[F.tokens_per_s_stream], sig3(p[F.tokens_per_s_stream]));
  show('out-total-tps', p[F.tokens_per_s], sig3(p[F.tokens_per_s]));
  if (problem || s.price.trim() === '') {
    show('out-cost', null, problem ? '—' : 'no price: enter $/device-hour');
  } else {
    const usd = p[F.usd_per_mtok_at_1usd] * Number(s.price.trim());
    show('out-cost', usd, '$' + sig3(usd));
  }
  drawMemory(p);
  drawBatch(cell, s);
}
function setPriceDefault() {
  const c = G.chips[+$('hw').value];
  $('price').value = c.usd_per_hour === null ? '' : String(c.usd_per_hour);
}
// Applies one set of inputs (ids and values as the CLI takes them) through the controls.
function apply(set) {
  const pick = (sel, list, v, key) => {
    const i = list.findIndex((x) => String(key ? x[key] : x) === String(v));
    if (i >= 0) $(sel).value = String(i);
  };
  if ('model' in set) pick('model', G.models, set.model, 'id');
  if ('hw' in set) { pick('hw', G.chips, set.hw, 'id'); setPriceDefault(); }
  if ('precision' in set) pick('precision', G.precisions, set.precision);
  if ('tp' in set) pick('tp', G.tps, set.tp);
  if ('context' in set) pick('context', G.contexts, set.context);
  if ('batch' in set) pick('batch', G.batches, set.batch);
  if ('price' in set) $('price').value = String(set.price);
  render();
}
function shown() {
  const out = { error: $('error').textContent };
  document.querySelectorAll('#numbers [data-value]').forEach((e) => { out[e.id] = e.dataset.value; out[e.id + '-text'] = e.textContent; });
  return out;
}
['model', 'precision', 'tp', 'context', 'batch', 'price'].forEach((id) => $(id).addEventListener('input', render));
$('hw').addEventListener('input', () => { setPriceDefault(); render(); });
setPriceDefault();
const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
if (hash.startsWith('sets=')) {
  const results = JSON.parse(hash.slice(5)).map((set) => { apply(set); return shown(); });
  $('selftest').textContent = JSON.stringify(results);
} else {
  const set = {};
  hash.split('&').filter((kv) => kv.includes('=')).forEach((kv) => { const [k, v] = kv.split('='); set[k] = v; });
  apply(set);
}
)JS";

}  // namespace

std::string sandbox_html(const nlohmann::json& grid) {
  std::string data = grid.dump();
  // Inside <script>, "</" could end the element: JSON allows "<\/" for the same text.
  for (size_t at = 0; (at = data.find("</", at)) != std::string::npos; at += 3) data.replace(at, 2, "<\\/");
  const std::string title = grid.value("title", std::string("rooftop sandbox"));
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
      "</title>\n<style>\nbody{margin:16px;font-family:'DejaVu Sans',Arial,sans-serif;font-size:14px;color:#1a1a1a}\n"
      "#controls label{display:inline-block;margin:4px 16px 4px 0}\n.error{color:#b00000;min-height:1.2em}\n"
      "table.t{border-collapse:collapse;margin:12px 0;font-size:13px}\n"
      "table.t th,table.t td{border:1px solid #cccccc;padding:3px 8px}\ntable.t th{background:#f0f0f0;text-align:left}\n"
      "table.t td{text-align:right;min-width:9em}\n.note{font-size:12px;color:#444444}\nsvg{display:block}\n</style>\n"
      "</head>\n<body>\n<h1>" + html_escape(title) + "</h1>\n";
  out += "<p class=\"note\">Every number is rooftop's analyzer run ahead of time for this grid (the same figures <code>rooftop fit</code> "
         "and <code>rooftop speed</code> print for these inputs): prompt " +
         std::to_string(grid.value("prompt_tokens", 0)) + " tokens, " + std::to_string(grid.value("output_tokens", 0)) +
         " output tokens, decode at the chosen context, KV " + html_escape(grid.value("kv_precision", std::string())) +
         ". The price is per device-hour; $/Mtok counts output tokens of all devices.</p>\n";
  out += "<div id=\"controls\">\n"
         "<label>model <select id=\"model\"></select></label>\n"
         "<label>chip <select id=\"hw\"></select></label>\n"
         "<label>precision <select id=\"precision\"></select></label>\n"
         "<label>tensor parallel <select id=\"tp\"></select></label>\n"
         "<label>context <input type=\"range\" id=\"context\" min=\"0\" step=\"1\" value=\"0\"> <span id=\"context-value\"></span></label>\n"
         "<label>batch <input type=\"range\" id=\"batch\" min=\"0\" step=\"1\" value=\"0\"> <span id=\"batch-value\"></span></label>\n"
         "<label>$/device-hour <input type=\"text\" id=\"price\" size=\"8\"></label>\n</div>\n"
         "<p id=\"error\" class=\"error\"></p>\n<table class=\"t\" id=\"numbers\">\n";
  const std::pair<const char*, const char*> rows[] = {
      {"fits", "fits in memory"}, {"total", "memory per device"}, {"capacity", "usable memory per device"},
      {"weights", "weights per device"}, {"kv", "KV cache per device"}, {"max-batch", "max batch at this context"},
      {"max-context", "max context at this batch"}, {"ttft", "TTFT"}, {"tpot", "TPOT"},
      {"stream", "tok/s per stream"}, {"total-tps", "tok/s, all streams"}, {"cost", "$ per million output tokens"}};
  for (const auto& [id, label] : rows)
    out += std::string("<tr><th>") + label + "</th><td><span id=\"out-" + id + "\" data-value=\"\"></span></td></tr>\n";
  out += "</table>\n<figure id=\"chart-memory\"><svg id=\"chart-memory-svg\" width=\"640\" height=\"80\"></svg></figure>\n"
         "<figure id=\"chart-batch\"><svg id=\"chart-batch-svg\" width=\"640\" height=\"220\"></svg></figure>\n"
         "<pre id=\"selftest\"></pre>\n<script id=\"grid\" type=\"application/json\">" + data + "</script>\n<script>" +
         kScript + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace rooftop::reports
