"""Convert quiz files from other tools into packs, and write packs back out.

Formats read: Moodle XML (CodeRunner included), GIFT, Red-DiscordBot trivia lists, Open Trivia DB
JSON, CSV/TSV and Anki's plain-text export. Formats written: GIFT, Moodle XML and CSV. Pure: no
platform, storage or file-system access; callers hand in bytes and get plain data back.
"""

from .build import MAX_INPUT_BYTES, convert_bytes
from .detect import FORMATS, detect, is_native_pack
from .export import EXPORT_FORMATS, Export, export_pack
from .origin import ORIGIN_FILE, in_source, read_origin
from .result import FORMAT_NAMES, Assumption, Conversion, Converted, ConvertError, NotConverted, UnknownFormat
from .table import template as csv_template

__all__ = [
    "EXPORT_FORMATS",
    "FORMATS",
    "FORMAT_NAMES",
    "MAX_INPUT_BYTES",
    "ORIGIN_FILE",
    "Assumption",
    "Conversion",
    "ConvertError",
    "Converted",
    "Export",
    "NotConverted",
    "UnknownFormat",
    "convert_bytes",
    "csv_template",
    "detect",
    "export_pack",
    "in_source",
    "is_native_pack",
    "read_origin",
]
