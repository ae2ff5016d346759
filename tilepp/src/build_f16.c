/* build_f16.c — the warning for arithmetic between two 16-bit floating
 * operands in a kernel.
 *
 * C leaves it to the compiler whether `a + b` on two half (_Float16) or
 * two bfloat16 (__bf16) values keeps float precision until the value is
 * stored (gcc, and the GPU, whose 16-bit types have no arithmetic of their
 * own) or is rounded to 16 bits at once (clang, whatever its
 * -ffloat16-excess-precision says). The two readings give the same value
 * when the result goes straight into a 16-bit object (float holds the
 * exact sum, difference, product or quotient of two 16-bit values closely
 * enough that rounding it to 16 bits afterwards is correct rounding), and
 * differ by up to half a 16-bit ulp otherwise: in a float variable, as an
 * operand of another operation, as an argument. There tilepp warns, so
 * that a CPU reference built with clang does not quietly disagree with the
 * GPU; `(float)a + b` means float everywhere. pragmas/README.md ("Functions
 * and types of tile.h") states the rule. */
#include "build_internal.h"

#include <string.h>

static bool value_16bit(CXCursor e) { return is_16bit_float(clang_getCursorType(e)); }

/* The arithmetic operator of binary expression e, or NULL. */
static const char *arith_op(CXCursor e)
{
    if (kind_of(e) != CXCursor_BinaryOperator)
        return NULL;
    switch (clang_getCursorBinaryOperatorKind(e)) {
    case CXBinaryOperator_Add:
        return "+";
    case CXBinaryOperator_Sub:
        return "-";
    case CXBinaryOperator_Mul:
        return "*";
    case CXBinaryOperator_Div:
        return "/";
    default:
        return NULL;
    }
}

/* Where the operator of binary expression e stands: after its left
 * operand. The expression's start where that cannot be told (a macro). */
static SrcLoc operator_loc(Builder *b, CXCursor e, CXCursor lhs)
{
    unsigned begin, end, lhs_begin, lhs_end;
    if (!fe_cursor_range(b->fe, e, &begin, &end) || !fe_cursor_range(b->fe, lhs, &lhs_begin, &lhs_end) ||
        lhs_end >= end)
        return loc_of(b, e);
    unsigned at = fe_skip_to_code(b->fe, lhs_end);
    if (at > end)
        at = end;
    return fe_loc(b->fe, clang_getLocationForOffset(b->fe->tu, b->fe->file, at));
}

static void warn_op(Builder *b, CXCursor e, const char *op, CXCursor lhs, CXCursor rhs)
{
    IrType x = ir_type(clang_getCursorType(lhs)), y = ir_type(clang_getCursorType(rhs));
    const char *operands = strcmp(x.spelling, y.spelling) == 0
                               ? aprintf("two %s operands", x.spelling)
                               : aprintf("a %s and a %s operand", x.spelling, y.spelling);
    warning_at(operator_loc(b, e, lhs),
               "'%s' of %s: clang rounds the result to 16 bits at once, gcc and the GPU keep it in float until it is "
               "stored; write '(float)a %s b' so that the C means the same with every compiler",
               op, operands, op);
}

/* Walks expression or statement c; `rounded`: its value goes straight into
 * a 16-bit object (assigned to one, initialises one, or is cast to a 16-bit
 * type), where both readings agree. */
static void walk(Builder *b, CXCursor c, bool rounded)
{
    enum CXCursorKind k = kind_of(c);
    Children ch = children_of(c);
    if (k == CXCursor_UnaryExpr) /* sizeof, _Alignof: not evaluated */
        return;
    bool passes = k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr; /* parentheses, implicit conversions */
    if (passes || k == CXCursor_CStyleCastExpr) {
        bool still = value_16bit(c) && (rounded || k == CXCursor_CStyleCastExpr);
        for (int i = 0; i < ch.n; i++)
            walk(b, ch.items[i], still);
        return;
    }
    const char *op = arith_op(c);
    if (op && ch.n == 2 && !rounded && value_16bit(ch.items[0]) && value_16bit(ch.items[1]))
        warn_op(b, c, op, ch.items[0], ch.items[1]);
    bool assign = k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign;
    if (assign && ch.n == 2) {
        walk(b, ch.items[0], false);
        walk(b, ch.items[1], value_16bit(ch.items[0]));
        return;
    }
    bool into_16bit = (k == CXCursor_VarDecl && is_16bit_float(clang_getCursorType(c))) ||
                      (k == CXCursor_ConditionalOperator && rounded && value_16bit(c));
    for (int i = 0; i < ch.n; i++) /* a conditional's condition is not its value */
        walk(b, ch.items[i], into_16bit && !(k == CXCursor_ConditionalOperator && i == 0));
}

void warn_f16_arithmetic(Builder *b, CXCursor body) { walk(b, body, false); }
