/**
 * The terminal side of /fusion-models. It decides nothing: the native selector (src/config/
 * selector.h) owns the state, the keys' meaning and every line of text. This module shows it
 * with Pi's `ctx.ui.custom()`, names the keys it receives through Pi's keybindings, wraps each
 * line to the width and colours it with the theme token the selector chose.
 */
import type { ExtensionCommandContext, Theme } from "@earendil-works/pi-coding-agent";
import { wrapTextWithAnsi } from "@earendil-works/pi-tui";

/** A line as the native selector renders it; `style` is a theme foreground token. */
interface SelectorLine {
  text: string;
  style: string;
}

/** The native selector, as the binding hands it over. */
export interface ModelsSelector {
  lines(): SelectorLine[];
  /** Applies a key ("up", "down", "enter", "escape", "backspace" or "text" with the typed text); true once closed. */
  key(name: string, text: string): boolean;
}

/** Keybinding ids of Pi's TUI and the key names the selector understands. */
const KEYS: ReadonlyArray<[string, string]> = [
  ["tui.select.up", "up"],
  ["tui.select.down", "down"],
  ["tui.select.confirm", "enter"],
  ["tui.select.cancel", "escape"],
  ["tui.editor.deleteCharBackward", "backspace"],
];

export function showModelsSelector(ctx: ExtensionCommandContext, selector: ModelsSelector): Promise<void> {
  return ctx.ui.custom<void>(
    (tui, theme: Theme, keybindings, done) => {
      let cache: { width: number; lines: string[] } | undefined;
      return {
        render(width: number): string[] {
          if (cache?.width !== width) {
            const lines = selector
              .lines()
              .flatMap((line) =>
                line.text === "" ? [""] : wrapTextWithAnsi(theme.fg(line.style as Parameters<Theme["fg"]>[0], line.text), width),
              );
            cache = { width, lines };
          }
          return cache.lines;
        },
        handleInput(data: string): void {
          const name = KEYS.find(([id]) => keybindings.matches(data, id as never))?.[1] ?? "text";
          const closed = selector.key(name, name === "text" ? data : "");
          cache = undefined;
          if (closed) done();
          else tui.requestRender();
        },
        invalidate(): void {
          cache = undefined;
        },
      };
    },
    { blocked: { kind: "question", message: "Choose Fusion's models" } },
  );
}
