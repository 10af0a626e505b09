// Tables: GFM pipe tables for data tables, blocks for layout tables.
//
// A data table becomes a grid: colspan repeats nothing (the extra columns are blank), rowspan
// repeats the cell's text in each spanned row, so every row reads on its own. The first row is
// the header row (GFM needs one); `align` or an inline text-align on its cells sets the
// alignment row. A table with one column, role="presentation"/"none" or a nested table is
// taken for page layout and rendered as blocks instead, since a pipe table would squeeze a page
// onto one line.
#include <algorithm>
#include <string>
#include <vector>

#include "extract/html_lexer.h"
#include "extract/render_util.h"
#include "extract/renderer.h"

namespace pi_fusion::extract {
namespace {

constexpr int kMaxColspan = 1000;   // as in the HTML standard
constexpr int kMaxRowspan = 65534;  // as in the HTML standard; 0 means "to the end"
constexpr size_t kMaxGridCells = 200'000;
constexpr size_t kMaxGridColumns = 1000;
constexpr size_t kNestedTableScanNodes = 20'000;

struct CellRef {
  const GumboNode* node;
  int colspan;
  int rowspan;
};

struct TableModel {
  const GumboNode* caption = nullptr;
  std::vector<std::vector<CellRef>> rows;
};

bool IsHtml(const GumboNode* node, GumboTag tag) {
  return node->type == GUMBO_NODE_ELEMENT &&
         node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML && node->v.element.tag == tag;
}

int SpanAttribute(const GumboElement& e, const char* name, int max, int zero_means) {
  const std::string_view v = Attribute(e, name);
  if (v.empty()) return 1;
  long n = 0;
  size_t i = 0;
  while (i < v.size() && IsHtmlSpace(v[i])) ++i;
  if (i == v.size() || v[i] < '0' || v[i] > '9') return 1;
  for (; i < v.size() && v[i] >= '0' && v[i] <= '9' && n <= max; ++i) n = n * 10 + (v[i] - '0');
  if (n == 0) return zero_means;
  return static_cast<int>(std::min<long>(n, max));
}

void CollectRow(const GumboNode* tr, TableModel* model) {
  std::vector<CellRef> row;
  const GumboVector& children = tr->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    const auto* cell = static_cast<const GumboNode*>(children.data[i]);
    if (!IsHtml(cell, GUMBO_TAG_TD) && !IsHtml(cell, GUMBO_TAG_TH)) continue;
    const GumboElement& e = cell->v.element;
    row.push_back({cell, SpanAttribute(e, "colspan", kMaxColspan, 1),
                   SpanAttribute(e, "rowspan", kMaxRowspan, kMaxRowspan)});
  }
  model->rows.push_back(std::move(row));
}

TableModel CollectTable(const GumboNode* table) {
  TableModel model;
  const GumboVector& children = table->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    const auto* child = static_cast<const GumboNode*>(children.data[i]);
    if (IsHtml(child, GUMBO_TAG_CAPTION) && model.caption == nullptr) model.caption = child;
    if (IsHtml(child, GUMBO_TAG_TR)) CollectRow(child, &model);
    if (IsHtml(child, GUMBO_TAG_THEAD) || IsHtml(child, GUMBO_TAG_TBODY) ||
        IsHtml(child, GUMBO_TAG_TFOOT)) {
      const GumboVector& rows = child->v.element.children;
      for (unsigned r = 0; r < rows.length; ++r) {
        const auto* tr = static_cast<const GumboNode*>(rows.data[r]);
        if (IsHtml(tr, GUMBO_TAG_TR)) CollectRow(tr, &model);
      }
    }
  }
  return model;
}

bool HasNestedTable(const GumboNode* table) {
  std::vector<const GumboNode*> stack = {table};
  for (size_t seen = 0; !stack.empty() && seen < kNestedTableScanNodes; ++seen) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n != table && IsHtml(n, GUMBO_TAG_TABLE)) return true;
    if (n->type != GUMBO_NODE_ELEMENT) continue;
    const GumboVector& children = n->v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      stack.push_back(static_cast<const GumboNode*>(children.data[i]));
    }
  }
  return false;
}

bool IsLayoutTable(const GumboNode* table, const TableModel& model) {
  const std::string_view role = Attribute(table->v.element, "role");
  if (EqualsIgnoreCase(role, "presentation") || EqualsIgnoreCase(role, "none")) return true;
  int columns = 0;
  for (const auto& row : model.rows) {
    int width = 0;
    for (const CellRef& c : row) width += c.colspan;
    columns = std::max(columns, width);
  }
  return columns <= 1 || HasNestedTable(table);
}

// ":---", ":---:" or "---:" from the cell's align attribute or inline text-align.
std::string AlignmentOf(const GumboElement& cell) {
  std::string align(Attribute(cell, "align"));
  const std::string_view style = Attribute(cell, "style");
  std::string compact;
  for (const char c : style) {
    if (!IsHtmlSpace(c)) compact.push_back(AsciiLower(c));
  }
  if (const size_t at = compact.find("text-align:"); at != std::string::npos) {
    align = compact.substr(at + 11, compact.find(';', at) - at - 11);
  }
  if (EqualsIgnoreCase(align, "center")) return ":---:";
  if (EqualsIgnoreCase(align, "right")) return "---:";
  if (EqualsIgnoreCase(align, "left")) return ":---";
  return "---";
}

std::string EscapeCell(const std::string& text, bool markdown) {
  if (!markdown) return text;
  std::string out;
  for (const char c : text) {
    if (c == '|') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

struct Carry {
  int rows = 0;  // rows still covered by a rowspan from above
  std::string text;
};

// Places the cells, expanding colspan and rowspan, and renders their text. Stops at
// kMaxGridColumns columns, kMaxGridCells cells, or once the text (repeated cells included) is
// over the output cap.
std::vector<std::vector<std::string>> BuildGrid(Renderer* r, const TableModel& model, int depth) {
  std::vector<std::vector<std::string>> grid;
  std::vector<Carry> carry;
  size_t cells = 0, bytes = 0;
  for (const auto& row : model.rows) {
    std::vector<std::string> out;
    size_t col = 0;
    const auto take_carried = [&](bool pad) {
      while (col < carry.size() && (carry[col].rows > 0 || pad)) {
        out.push_back(carry[col].rows > 0 ? carry[col].text : "");
        bytes += out.back().size();
        if (carry[col].rows > 0) --carry[col].rows;
        ++col;
      }
    };
    for (const CellRef& cell : row) {
      take_carried(/*pad=*/false);
      if (col >= kMaxGridColumns) break;
      const std::string text = EscapeCell(r->CellText(cell.node, depth + 1), r->options().markdown);
      bytes += text.size();
      for (int k = 0; k < cell.colspan && col < kMaxGridColumns; ++k, ++col) {
        if (col >= carry.size()) carry.resize(col + 1);
        carry[col] = {cell.rowspan - 1, k == 0 ? text : std::string()};
        out.push_back(carry[col].text);
      }
    }
    take_carried(/*pad=*/true);
    cells += out.size();
    grid.push_back(std::move(out));
    r->CheckOutput(bytes + 4 * cells);
    if (r->stopped() || cells > kMaxGridCells) break;
  }
  return grid;
}

void RenderLayout(Renderer* r, const TableModel& model, int depth) {
  Writer& w = r->writer();
  if (model.caption != nullptr) r->Node(model.caption, depth + 1);
  for (const auto& row : model.rows) {
    w.Break(false);
    for (const CellRef& cell : row) {
      w.Break(false);
      r->Children(cell.node, depth + 1);
      w.Break(false);
    }
  }
}

void RenderGrid(Renderer* r, const TableModel& model,
                const std::vector<std::vector<std::string>>& grid) {
  size_t width = 0;
  for (const auto& row : grid) width = std::max(width, row.size());
  if (width == 0) return;
  const bool md = r->options().markdown;
  std::vector<std::string> align(width, "---");
  if (!model.rows.empty()) {
    size_t col = 0;
    for (const CellRef& cell : model.rows.front()) {
      if (col < width) align[col] = AlignmentOf(cell.node->v.element);
      col += cell.colspan;
    }
  }
  Writer& w = r->writer();
  for (size_t i = 0; i < grid.size(); ++i) {
    std::string line = md ? "|" : "";
    // Plain text has no column syntax to keep: trailing empty cells are left out.
    size_t used = md ? width : grid[i].size();
    while (!md && used > 0 && grid[i][used - 1].empty()) --used;
    if (!md && used == 0) continue;  // an empty row would print a blank line, or end the text
    for (size_t c = 0; c < used; ++c) {
      const std::string& text = c < grid[i].size() ? grid[i][c] : std::string();
      if (md) {
        line += " " + text + " |";
      } else {
        line += (c == 0 ? "" : " | ") + text;
      }
    }
    w.Line(line);
    if (md && i == 0) {
      std::string rule = "|";
      for (const std::string& a : align) rule += " " + a + " |";
      w.Line(rule);
    }
  }
}

}  // namespace

void RenderTable(Renderer* r, const GumboNode* table, int depth) {
  const TableModel model = CollectTable(table);
  Writer& w = r->writer();
  w.Break(true);
  if (r->in_cell() || IsLayoutTable(table, model)) {
    RenderLayout(r, model, depth);
    return w.Break(true);
  }
  const auto grid = BuildGrid(r, model, depth);
  if (model.caption != nullptr) {
    w.Text(r->CellText(model.caption, depth + 1));
    w.Break(true);  // a pipe table does not interrupt a paragraph
  }
  RenderGrid(r, model, grid);
  w.Break(true);
}

}  // namespace pi_fusion::extract
