"""Slack's sizes and counts (Block Kit, modals, files) that the front end keeps to."""

from __future__ import annotations

TEXT_MAX = 3000
HEADER_MAX = 150
MESSAGE_BLOCKS_MAX = 50
VIEW_BLOCKS_MAX = 100
FIELDS_PER_SECTION = 10
FIELD_MAX = 2000
BUTTON_TEXT_MAX = 75
BUTTON_VALUE_MAX = 2000
OPTION_TEXT_MAX = 75
OPTION_VALUE_MAX = 150
OPTIONS_MAX = 100
PLACEHOLDER_MAX = 150
ELEMENTS_PER_ACTIONS = 25
MODAL_TITLE_MAX = 24
LABEL_MAX = 2000
INPUT_MAX = 3000
METADATA_MAX = 3000
FALLBACK_MAX = 300
IMAGE_ALT_MAX = 2000  # an image block's alt_text
IMAGE_UPLOAD_MAX = 1024 * 1024  # a picture the bot uploads (its own PNGs stay under 300 KB)
PART_SECTIONS_MAX = 3  # one text or code part never takes more than this many sections
NOTE_ROOM = 80  # characters kept free in a section for a "cut" note

PY_FILE_LIMIT = 256 * 1024  # a .py answer sent as a file is downloaded up to this size
PACK_FILE_LIMIT = 4 * 1024 * 1024  # a pack file likewise
