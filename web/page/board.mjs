// The check's text, as `grader check` prints it, turned into the page's
// DOM: every line of words kept as it is, and every board picture drawn as
// a table a screen reader can read (column and row headers counted from 0,
// as the messages count them; box borders; the marked cell named).
//
// The pictures are those of `grader check` (src/report/student.rs,
// `labelled`): a header of column numbers, rows as "  2  1 3 |[2].", rules
// as "-----+----", indented by 6; two side by side under a title line
// "the case ... the smallest failing board".

const INDENT = 6;
const SIDE_TITLE = 'the smallest failing board';

/** Is `s` (a line without its 6-space indent) a line of a labelled picture? */
function pictureLine(s) {
  return /^ {4,}\d[\d ]*$/.test(s) // column numbers
    || /^ {0,2}\d{1,3} [\d .|[\]]+$/.test(s) // a numbered row
    || /^ {4}-[-+]*$/.test(s); // a rule between bands of boxes
}

/** A board line: indented by 6, then a picture line. */
function boardLine(line) {
  return line.startsWith(' '.repeat(INDENT)) && pictureLine(line.slice(INDENT));
}

/**
 * A labelled picture's lines (indent removed) read back as a grid: rows of
 * cell texts, the marked cell, the box sizes. Null when it is not one.
 */
export function parsePicture(lines, labelled = true) {
  const rows = [];
  let marked = null;
  let boxWidth = 0;
  let boxHeight = 0;
  for (const raw of lines) {
    if ((labelled && /^ {4,}\d[\d ]*$/.test(raw)) || raw.trim() === '') continue;
    const line = labelled ? raw.slice(4) : raw;
    if (/^-[-+]*$/.test(line.trim())) {
      if (boxHeight === 0) boxHeight = rows.length;
      continue;
    }
    const cells = [];
    line.split('|').forEach((part, i) => {
      if (i === 1 && boxWidth === 0) boxWidth = cells.length;
      const spaced = part.replaceAll('[ ', '[').replaceAll('[', ' [').replaceAll(']', '] ');
      for (const token of spaced.split(/\s+/).filter(Boolean)) {
        let cell = token;
        if (token.startsWith('[') && token.endsWith(']')) {
          marked = [rows.length, cells.length];
          cell = token.slice(1, -1);
        }
        if (!/^[\d.]+$/.test(cell)) return;
        cells.push(cell);
      }
    });
    rows.push(cells);
  }
  if (rows.length < 2 || rows.some((r) => r.length !== rows[0].length)) return null;
  return { rows, marked, boxWidth, boxHeight };
}

/** A grid as a table: caption, column and row headers, box borders, the mark. */
export function boardTable(grid, caption) {
  const table = document.createElement('table');
  table.className = 'board';
  const cap = document.createElement('caption');
  cap.textContent = caption;
  table.append(cap);
  const head = table.createTHead().insertRow();
  const corner = document.createElement('td');
  corner.className = 'corner';
  head.append(corner);
  grid.rows[0].forEach((_, c) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = String(c);
    th.setAttribute('aria-label', `col ${c}`);
    head.append(th);
  });
  const body = table.createTBody();
  grid.rows.forEach((cells, r) => {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = String(r);
    th.setAttribute('aria-label', `row ${r}`);
    tr.append(th);
    cells.forEach((cell, c) => {
      const td = tr.insertCell();
      const empty = cell === '.';
      td.textContent = empty ? '' : cell;
      if (empty) td.append(hiddenText('empty'));
      if (grid.boxWidth && c % grid.boxWidth === 0 && c > 0) td.classList.add('box-left');
      if (grid.boxHeight && r % grid.boxHeight === 0 && r > 0) td.classList.add('box-top');
      if (grid.marked && grid.marked[0] === r && grid.marked[1] === c) {
        td.classList.add('mark');
        td.title = `(row ${r}, col ${c})`;
        td.append(hiddenText(' (the cell the message is about)'));
      }
    });
  });
  if (grid.marked) {
    const [r, c] = grid.marked;
    table.dataset.marked = `${r},${c}`;
  }
  return table;
}

function hiddenText(text) {
  const span = document.createElement('span');
  span.className = 'sr-only';
  span.textContent = text;
  return span;
}

/** A picture's lines as a figure: the grid, or the text when it is not one. */
function boardFigure(lines, caption) {
  const grid = parsePicture(lines);
  if (!grid) {
    const pre = document.createElement('pre');
    pre.textContent = lines.join('\n');
    return pre;
  }
  const figure = document.createElement('div');
  figure.className = 'board-box';
  figure.append(boardTable(grid, caption));
  return figure;
}

/**
 * Appends `lines` (grader check's text) to `container`: words as
 * paragraphs (indentation kept as nesting), pictures as tables.
 */
export function renderLines(lines, container) {
  let i = 0;
  let lastWords = '';
  while (i < lines.length) {
    const line = lines[i];
    const side = line.indexOf(SIDE_TITLE);
    if (side > INDENT && line.trim().startsWith('the case') && i + 1 < lines.length && boardLine(lines[i + 1].slice(0, side))) {
      const left = [];
      const right = [];
      i += 1;
      while (i < lines.length && lines[i].trim() !== '' && (boardLine(lines[i].slice(0, side).trimEnd()) || boardLine(' '.repeat(INDENT) + lines[i].slice(side)))) {
        left.push(lines[i].slice(INDENT, side).trimEnd());
        right.push(lines[i].slice(side));
        i += 1;
      }
      const pair = document.createElement('div');
      pair.className = 'board-pair';
      pair.append(boardFigure(left.filter((l) => l.trim() !== ''), 'the case'), boardFigure(right.filter((l) => l.trim() !== ''), SIDE_TITLE));
      container.append(pair);
      continue;
    }
    if (boardLine(line)) {
      const block = [];
      while (i < lines.length && boardLine(lines[i])) {
        block.push(lines[i].slice(INDENT));
        i += 1;
      }
      const caption = lastWords.endsWith(':') ? lastWords.slice(0, -1) : 'the board';
      container.append(boardFigure(block, caption));
      continue;
    }
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const p = document.createElement('p');
    const depth = Math.min(4, Math.floor((line.length - line.trimStart().length) / 2));
    p.className = `line d${depth}`;
    const words = line.trim();
    const mark = /^([✓✗!?·-]) /.exec(words);
    if (mark) {
      p.classList.add(mark[1] === '✓' ? 'pass' : 'fail');
    }
    p.textContent = words;
    lastWords = words;
    container.append(p);
    i += 1;
  }
}

/** A board given as data ({ n, cells row-major with 0 empty, marked }) as a grid. */
function gridOf(board) {
  const n = Number(board.n);
  const side = n * n;
  if (!side || !Array.isArray(board.cells) || board.cells.length !== side * side) return null;
  const rows = [];
  for (let r = 0; r < side; r += 1) {
    rows.push(board.cells.slice(r * side, (r + 1) * side).map((v) => (v === 0 ? '.' : String(v))));
  }
  const marked = Array.isArray(board.marked) ? board.marked : null;
  return { rows, marked, boxWidth: n, boxHeight: n };
}

/**
 * When the check's text draws no board (an engine whose words are the
 * judge's own), the boards the result carries: the first failing test's
 * board (a picture in the report) and the shrink's boards (as data).
 */
export function resultBoards(result) {
  const figures = [];
  const failing = (result.report?.submission?.tests ?? []).find((t) => t.verdict !== 'pass' && t.board);
  if (failing) {
    const board = failing.board;
    const grid = typeof board === 'string'
      ? parsePicture(board.split('\n'), false)
      : gridOf({ n: board.n, cells: (board.rows ?? []).flat(), marked: board.cell ?? board.marked });
    if (grid) figures.push(boardTable(grid, `the board of ${failing.function} on ${failing.case}`));
  }
  for (const board of result.boards ?? []) {
    const grid = gridOf(board);
    if (grid) figures.push(boardTable(grid, board.title ?? 'the board'));
  }
  return figures;
}

/** Puts `figures` after the first failure's words in `container`. */
export function placeBoards(figures, container) {
  if (!figures.length || container.querySelector('table.board')) return;
  const box = document.createElement('div');
  box.className = 'board-pair';
  for (const table of figures) {
    const wrap = document.createElement('div');
    wrap.className = 'board-box';
    wrap.append(table);
    box.append(wrap);
  }
  const after = [...container.querySelectorAll('p.line')].find((p) => /^also fails:|^\d+ of \d+ public tests/.test(p.textContent));
  container.insertBefore(box, after ?? null);
}
