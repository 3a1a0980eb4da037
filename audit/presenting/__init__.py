"""What the back-office's output shares, whatever app draws it: the charts' canvas, the
reports' columns and rows, the progress bars and the conventions of the management
commands."""
