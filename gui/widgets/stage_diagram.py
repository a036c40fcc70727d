"""A stage of alignment drawn as a diagram: its models as boxes, what flows between them as arrows, a legend.

Boxes are the roles of ``engine.alignment`` (outline by how each is held: ``gui.widgets.role_style``) plus the data
and the loss; arrows are ``engine.alignment.FLOWS`` in the order one step sends them, so ``play`` animates one
step of the loop (``gui.widgets.flow_player``). A rollout engine, when the stage has one, sits beside the policy,
fed with its weights. Bytes on the boxes are the engine's, per GPU.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPen, QResizeEvent
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QSizePolicy, QWidget

from engine.alignment import FLOWS, Mode, RoleCost, StageMemory
from engine.units import Unit, format_bytes
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.text.words import engine_text, held_as, role_name
from gui.widgets.diagram_items import TEXT_PX, add_arrow, add_box, arrow_path, diagram_font
from gui.widgets.flow_player import FlowPlayer
from gui.widgets.role_style import fill, in_memory, outline, role_color

POSITIONS = {"rollout": (0, 0), "critic": (300, 0), "reward": (600, 0), "data": (0, 150), "policy": (300, 150),
             "loss": (600, 150), "reference": (300, 300)}
LEGEND_GAP = 34.0  # from the lowest box to the key under the drawing
MIN_LINES, HINT_LINES = 22.0, 40.0  # the view's least and preferred width in lines of text


class StageDiagram(FollowsPalette, QGraphicsView):
    """The diagram of one stage.

    Signals:
        playing_changed(bool): the one-step animation started or ended.
    """

    playing_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        line = self.fontMetrics().height()
        self.setMinimumSize(round(MIN_LINES * line), round(MIN_LINES * line * 0.5))
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        policy.setHeightForWidth(True)  # as tall as its drawing at this width: no empty band above or below
        self.setSizePolicy(policy)
        self.player = FlowPlayer(self)
        self.player.playing_changed.connect(self.playing_changed)
        self._shown: tuple[StageMemory, dict[str, str], Unit] | None = None
        self._paths: list[tuple[object, str]] = []
        self._texts: dict[str, str] = {}
        self.follow_palette()

    def show_stage(self, sm: StageMemory, node_labels: dict[str, str], unit: Unit) -> None:
        """Draw ``sm``; ``node_labels`` gives the data and loss nodes' subtitles (translated)."""
        self.player.stop()
        self._shown = (sm, node_labels, unit)
        self._draw()

    def play(self) -> None:
        """Animate one step of the loop (restarts if running)."""
        if self._shown is not None:
            self.player.play(self.scene(), self._paths, QColor(colors_for(self).foreground))  # type: ignore[arg-type]

    def stop(self) -> None:
        self.player.stop()

    def node_texts(self) -> dict[str, str]:
        """Each box's text as shown (plain), by node: what a test checks against the engine."""
        return dict(self._texts)

    def arrow_labels(self) -> list[str]:
        return [label for _, label in self._paths]

    def _draw(self) -> None:
        assert self._shown is not None
        sm, labels, unit = self._shown
        c = colors_for(self)
        scene = self.scene()
        scene.clear()
        self._texts.clear()
        roles = {r.role.value: r for r in sm.roles}
        nodes = {f.source for f in FLOWS[sm.stage]} | {f.target for f in FLOWS[sm.stage]} | set(roles)
        centre = {n: QPointF(*POSITIONS[n]) for n in nodes}
        for node in nodes:
            role = roles.get(node)
            html = self._box_text(node, role, labels, unit)
            _, text = add_box(scene, centre[node], html, pen=outline(c, role, node), brush=fill(c, role, node),
                              ink=QColor(c.foreground))
            self._texts[node] = " ".join(text.toPlainText().split())
        self._paths = []
        for f in FLOWS[sm.stage]:
            live = all(n not in roles or in_memory(roles[n]) or roles[n].mode is Mode.RULE
                       for n in (f.source, f.target))
            path = arrow_path(centre[f.source], centre[f.target])
            colour = QColor(c.foreground if live else c.muted)
            add_arrow(scene, path, engine_text(f.label), colour=colour, background=QColor(c.background),
                      dashed=not live)
            if live:
                self._paths.append((path, engine_text(f.label)))
        if "rollout" in roles:
            path = arrow_path(centre["policy"], centre["rollout"])
            add_arrow(scene, path, self.tr("policy's weights"), colour=role_color(c, "rollout"),
                      background=QColor(c.background), dashed=True)
        self._legend(scene)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-10, -10, 10, 10))
        self.updateGeometry()  # a stage of another shape: the layout asks heightForWidth again
        self._fit()

    def _box_text(self, node: str, role: RoleCost | None, labels: dict[str, str], unit: Unit) -> str:
        if role is None:
            return f"<b>{role_name(node)}</b><br><i>{labels.get(node, '')}</i>"
        how = held_as(role.role.value, role.mode.value, role.holding.value)
        size = format_bytes(role.bytes, unit) if role.bytes else self.tr("no GPU memory")
        if role.elsewhere:
            size = self.tr("{bytes} on its own GPUs").format(bytes=format_bytes(sum(role.elsewhere.values()), unit))
        warning = f"<br><small>⚠ {engine_text(role.note)}</small>" if role.note else ""
        return f"<b>{role_name(node)}</b><br>{how}<br>{size}{warning}"

    def _legend(self, scene: QGraphicsScene) -> None:
        c = colors_for(self)
        ink = QColor(c.foreground)  # the key is about the outline's style: each role keeps its own colour
        entries = [
            (QPen(ink, 2), self.tr("trained")),
            (QPen(ink, 2, Qt.PenStyle.DashLine), self.tr("frozen (inference only)")),
            (QPen(ink, 2, Qt.PenStyle.DotLine), self.tr("can be a program rather than a model")),
        ]
        x, y = 0.0, scene.itemsBoundingRect().bottom() + LEGEND_GAP  # under the drawing, whatever its rows
        for pen, text in entries:
            scene.addRect(QRectF(x, y, 28, 18), pen)
            label = scene.addSimpleText(text, diagram_font())
            label.setBrush(QColor(c.foreground))
            label.setPos(x + 36, y)
            x += 36 + label.boundingRect().width() + 28

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        """The drawing's height at ``width``: the view's shape is the scene's."""
        rect = self.sceneRect()
        return round(width * rect.height() / rect.width()) if rect.width() > 0 else super().heightForWidth(width)

    def width_for_text(self, pixels: float) -> float:
        """The view's width at which its text is drawn ``pixels`` tall (the drawing fills the width)."""
        return self.sceneRect().width() * pixels / TEXT_PX

    def sizeHint(self) -> QSize:
        width = round(HINT_LINES * self.fontMetrics().height())
        return QSize(width, self.heightForWidth(width))

    def _fit(self) -> None:
        self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def hideEvent(self, event: QHideEvent) -> None:
        self.player.stop()
        super().hideEvent(event)

    def palette_changed(self) -> None:
        if self._shown is not None:
            self.player.stop()
            self._draw()

