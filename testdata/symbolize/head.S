/* SPDX-License-Identifier: MIT */
/* The start of the test kernel's text: _stext, _text and an assembly
 * function (built without -g: no line information). */
	.text
	.globl _stext, _text
_stext:
_text:
	.globl startup_64
	.type startup_64, @function
startup_64:
	nop
	call ext_create
	ret
	.size startup_64, . - startup_64
	.section .note.GNU-stack,"",@progbits
