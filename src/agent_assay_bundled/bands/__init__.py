"""The bundled systems' band files (YAML), named by each adapter's Facts."""

from pathlib import Path

BANDS = Path(__file__).parent
