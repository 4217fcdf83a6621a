/* SPDX-License-Identifier: MIT */
/*
 * Hand-written assembly as the kernel's entry and thunk code is: labels
 * without a type or a size (SYM_CODE_START without SYM_CODE_END, as
 * asm_exc_nmi_noist or srso_return_thunk are in a vmlinux), a local one
 * (identity_mapped), a STT_NOTYPE symbol with a size (SYM_CODE_START ...
 * SYM_CODE_END) holding an inner label (SYM_INNER_LABEL, like
 * entry_SYSCALL_64_after_hwframe), a sized function followed by
 * padding, and a function between linker-script-like markers
 * (__sched_text_start, __schedule, __sched_text_end).  Built without
 * -g: no line information.
 */
	.text
	.p2align 4
	.globl asm_exc_nmi_noist
asm_exc_nmi_noist:
	nop
	call ext_create
	nop
	ret

	.p2align 4
	.globl srso_return_thunk
srso_return_thunk:
	call ext_create
	ud2

	.p2align 4
	.globl entry_code
	.type entry_code, @notype
entry_code:
	nop
	call ext_create
	.globl entry_after_hwframe
entry_after_hwframe:
	nop
	call ext_create
	ret
	.size entry_code, . - entry_code

	.p2align 4
	.globl sized_thunk
	.type sized_thunk, @function
sized_thunk:
	nop
	call ext_create
	ret
	.size sized_thunk, . - sized_thunk
	int3
	int3

	.p2align 4
	.globl __sched_text_start
__sched_text_start:
	.globl __schedule
	.type __schedule, @function
__schedule:
	nop
	call ext_create
	ret
	.size __schedule, . - __schedule
	.globl __sched_text_end
__sched_text_end:

	.p2align 4
identity_mapped:
	nop
	call ext_create
	nop
	ret
	.section .note.GNU-stack,"",@progbits
