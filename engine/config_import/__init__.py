"""Import the training configs people already have: Axolotl, LLaMA-Factory, torchtune, TRL / transformers,
DeepSpeed and accelerate files, alone or together.

One call, :func:`import_configs`, reads the files (safely: ``engine.config_import.loading``), recognises each
tool by its keys (``detect``), maps each through its tool's table (one module per tool, whose docstring cites
the tool's own files and version for every default it assumes), combines them, lets explicit settings override
every file (``resolve``) and finds the model (``models``). It returns an :class:`ImportedConfig`: the
``TrainingSetup``, the ``ModelSpec``, the alignment method a file names, and an :class:`ImportReport` of what
was read, ignored (with why) and assumed. Every refusal is a :class:`ConfigRefusedError` (a ``ValueError``) whose
message is one line naming the file and the key; every sentence is a translatable :class:`Message`.
"""

from engine.config_import.importer import ImportedConfig, import_configs
from engine.config_import.names import AlignmentMethod
from engine.config_import.report import ConfigRefusedError, Format, Ignored, ImportReport, Message

__all__ = ["AlignmentMethod", "ConfigRefusedError", "Format", "Ignored", "ImportReport", "ImportedConfig", "Message",
           "import_configs"]
