"""The case studies: each bundled or published benchmark reproduced against its own scoring,
and the tables and findings its case study quotes from reports/."""
