"""Small, obviously fictional word lists shared by the world builder and the script author.

Promise: every name, street, city, merchant and nickname here is invented, so no generated
record can be mistaken for a real person or business. Keeping the lists in one place means
the world and the golden scripts can never drift apart on spelling.
This module must not import agent_assay.
"""

FIRST_NAMES: tuple[str, ...] = (
    "Ada", "Bram", "Cleo", "Dorian", "Elsie", "Fenwick", "Greta", "Hollis",
    "Ines", "Jasper", "Kestrel", "Lumi", "Marlow", "Nell", "Orrin", "Pippa",
)

SURNAMES: tuple[str, ...] = (
    "Placeholder", "Fakely", "Notreal", "Madeup", "Sampleton", "Pretendly",
    "Fictional", "Testmore", "Inventor", "Makebelieve",
)

STREETS: tuple[str, ...] = (
    "Imaginary Lane", "Placeholder Road", "Nowhere Street", "Fable Avenue",
    "Makebelieve Close", "Pretend Crescent", "Synthetic Way", "Invented Terrace",
)

CITIES: tuple[str, ...] = (
    "Nowhereville", "Fablemouth", "Mistbury", "Quillhaven", "Dreamport", "Fictonia",
)

MERCHANTS: tuple[str, ...] = (
    "Fictional Grocer", "Imaginary Coffee Co", "Placeholder Books", "Nowhere Electronics",
    "Pretend Pizza", "Madeup Fuel", "Sample Streaming", "Dummy Airlines",
    "Mock Pharmacy", "Invented Hardware", "Unreal Cinema", "Phantom Gym",
)

EMPLOYER = "Imaginary Employer Ltd"
INTEREST_PAYER = "Synthbank Interest"

CHECKING_NICKNAMES: tuple[str, ...] = ("Everyday", "Spending", "Household")
SAVINGS_NICKNAMES: tuple[str, ...] = ("Rainy Day", "Holiday Fund", "House Deposit", "Nest Egg")

POSTCODE_PATTERN = r"ZZ\d{1,2} \d[A-Z]{2}"
"""Fictional postcodes always start with ZZ, which no real postal system issues."""
