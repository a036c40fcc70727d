"""A visual audit of a real window: what a careful reviewer looks for in a screenshot, checked by code.

Given a shown ``QWidget`` (usually the ``MainWindow`` at some size, language, theme and presentation scale),
``audit(window)`` walks every visible text the user can see, in widgets (labels, buttons, combos, spin boxes,
group-box titles, tab bars, headers, table cells) and in pyqtgraph charts and diagrams (axis tick labels, axis
labels, legends, text items), and reports, as ``Finding``s:

- **clipped** text: wider or taller than the room it is given, by its font's metrics (an elided combo, a "409"
  spin box, a label cut by its parent, a chart label outside its view, a diagram label overflowing its box);
- **overlapping** texts, and chart texts **crossed** by a chart line or an arrow;
- **contrast** below WCAG 2.1's 4.5:1 (3:1 for large text and for check-box indicators), measured on the rendered
  pixels (``QWidget.grab``): the text's ink against the dominant colour behind it;
- **untranslated** English that a Traditional Chinese user sees (``gui.visual_audit.words`` keeps the small,
  explained allow-list);
- **squashed** controls and charts (a slider reduced to a dot, a plot too short to read) and **empty** charts.

The modules (the contrast formula is ``gui.look.wcag``, shared with the palettes): ``pixels`` (colours out of a
grab), ``boxes`` (``TextBox``, where a text is and what room it has), ``widget_texts`` and ``chart_texts``
(collecting them), ``checks`` (the rules), ``words`` (untranslated text), ``run`` (``audit``), ``window`` (setting a
main window up for one audit). Importing this package builds nothing: it only imports Qt.
"""
