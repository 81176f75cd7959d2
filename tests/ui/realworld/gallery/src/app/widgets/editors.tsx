// Editors: ProseMirror through tiptap, CodeMirror 6, lexical's core on a contenteditable, and a terminal.
import "@xterm/xterm/css/xterm.css";

import { EditorContent, useEditor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import CodeMirror from "@uiw/react-codemirror";
import { Terminal } from "@xterm/xterm";
import { $createParagraphNode, $createTextNode, $getRoot, createEditor } from "lexical";
import { useEffect, useRef } from "react";

function Tiptap() {
  const editor = useEditor({ extensions: [StarterKit], content: "<p>Hello <strong>tiptap</strong></p>" });
  return (
    <div data-testid="tiptap">
      <EditorContent editor={editor} />
    </div>
  );
}

function Codemirror() {
  return (
    <div data-testid="codemirror">
      <CodeMirror value={"const answer = 42;\n"} height="80px" />
    </div>
  );
}

function Xterm() {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const terminal = new Terminal({ rows: 6, cols: 40 });
    terminal.open(box.current!);
    terminal.write("hello from xterm\r\n");
    return () => terminal.dispose();
  }, []);
  return <div data-testid="xterm" ref={box} />;
}

// lexical's core alone: the fixture's @lexical/react is 0.52 beside lexical 0.53, the duplicate-copies case
function Lexical() {
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const editor = createEditor({
      namespace: "gallery",
      onError: (error) => {
        throw error;
      },
    });
    editor.setRootElement(root.current);
    editor.update(() => {
      $getRoot().append($createParagraphNode().append($createTextNode("Hello lexical")));
    });
    return () => editor.setRootElement(null);
  }, []);
  return (
    <div data-testid="lexical">
      <div ref={root} contentEditable suppressContentEditableWarning />
    </div>
  );
}

export const editors = { tiptap: Tiptap, codemirror: Codemirror, lexical: Lexical, xterm: Xterm };
