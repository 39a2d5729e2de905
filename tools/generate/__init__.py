"""What rebuilds committed files from the code: reports/ by running the documented commands,
and the generated reference pages docs/cli.md and docs/api.md."""
